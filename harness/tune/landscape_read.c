/* A landscape file's bytes (landscape_build.h), gunzipped when they start
 * with gzip's magic bytes, whatever the name says: Kernel Tuner's cache
 * files are often kept as .json.gz. The whole stream must inflate to its
 * end (every member of a multi-member file), so a file cut short or
 * damaged is an error, never a landscape missing its tail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/util.h"
#include "tune/landscape_build.h"

static int is_gzip(const char *data, size_t len) {
    return len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b;
}

static char *gunzip(const char *path, const char *in, size_t in_len, size_t *out_len, char *err, size_t errn) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return err_set(err, errn, "%s: zlib could not start", path), NULL;
    size_t cap = in_len * 4 + 4096, len = 0;
    char *out = xcalloc(cap, 1);
    z.next_in = (unsigned char *)in;
    int rc = Z_OK;
    size_t left = in_len;
    const char *why = NULL;
    while (1) {
        /* zlib counts in unsigned int: feed a file over 4 GB in slices. */
        if (!z.avail_in && left) {
            z.avail_in = left > (1u << 30) ? 1u << 30 : (unsigned)left;
            left -= z.avail_in;
        }
        if (cap - len < 65536) {
            char big[200];
            if (host_memory_check((double)cap * 2, "the gunzipped file", big, sizeof big)) {
                inflateEnd(&z);
                free(out);
                return err_set(err, errn, "%s: %s", path, big), NULL;
            }
            cap *= 2;
            out = xrealloc(out, cap);
        }
        const size_t room = cap - len - 1 > (1u << 30) ? 1u << 30 : cap - len - 1;
        z.next_out = (unsigned char *)out + len;
        z.avail_out = (unsigned)room;
        rc = inflate(&z, Z_NO_FLUSH);
        len += room - z.avail_out;
        if (rc == Z_STREAM_END) {
            if (!z.avail_in && !left) break;
            /* Another gzip member follows (`cat a.gz b.gz`): go on with it. */
            if (inflateReset(&z) != Z_OK) break;
            continue;
        }
        if (rc == Z_BUF_ERROR && !z.avail_in && !left) {
            why = "the compressed data ends early (the file is cut off)";
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) break;
    }
    if (rc != Z_STREAM_END) {
        err_set(err, errn, "%s: a corrupt gzip file: %s", path, why ? why : z.msg ? z.msg : "inflate failed");
        inflateEnd(&z);
        free(out);
        return NULL;
    }
    inflateEnd(&z);
    out[len] = '\0';
    *out_len = len;
    return out;
}

char *landscape_read(const char *path, size_t *len, char *err, size_t errn) {
    size_t n = 0;
    char *data = file_read_all(path, &n, err, errn);
    if (!data) return NULL;
    if (!is_gzip(data, n)) {
        *len = n;
        return data;
    }
    char *plain = gunzip(path, data, n, len, err, errn);
    free(data);
    return plain;
}
