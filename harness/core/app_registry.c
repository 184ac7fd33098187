/* Finds an app in the table generated from the folders under kernels/. */
#include <string.h>

#include "core/app.h"

const struct app *app_find(const char *name) {
    for (int i = 0; apps[i]; i++)
        if (strcmp(apps[i]->name, name) == 0) return apps[i];
    return NULL;
}
