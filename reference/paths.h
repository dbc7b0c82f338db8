/*
 * paths.h - where an isotier finds its parts: the catalogue, the probe, the
 * guest init; an installed prefix first, then the source tree (paths.c).
 */
#ifndef ISOTIER_PATHS_H
#define ISOTIER_PATHS_H

#include "../base/base.h"

/* $ISOTIER_CATALOGUE, else the source tree's catalogue/providers, else
 * ./catalogue/providers. */
const char *isotier_default_catalogue_dir(void);
/* PREFIX/rel of an installed isotier (paths.c); 0 when it exists. */
int isotier_install_path(char *buf, size_t len, const char *rel);
/* $ISOTIER_PROBE, else isotier-probe beside the running executable, else the
 * source tree's build/isotier-probe. 0, or ISOTIER_ENOTFOUND. */
int isotier_default_probe_path(char *buf, size_t len);

#endif
