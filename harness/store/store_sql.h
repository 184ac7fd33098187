/* SQLite-level helpers the store's own files share (never included outside
 * harness/store/). */
#ifndef HARNESS_STORE_SQL_H
#define HARNESS_STORE_SQL_H
#include <sqlite3.h>

/* Column i of the current row as text; "" for NULL. */
const char *store_text(sqlite3_stmt *st, int i);
/* NaN is "not measured" and is stored as NULL, so aggregates (avg, min)
 * skip it; read back, NULL is NaN again. store_bind_real returns
 * sqlite3_bind_*'s code (SQLITE_OK, 0, on success). */
int store_bind_real(sqlite3_stmt *st, int i, double v);
double store_real(sqlite3_stmt *st, int i);
/* Does the table have the column? 0 also when the query fails. */
int store_has_column(sqlite3 *db, const char *table, const char *column);
#endif
