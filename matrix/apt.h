/* SPDX-License-Identifier: MIT */
/*
 * Debian packages of any suite, through a private apt configuration kept
 * in the cache (cache/apt/): its own sources.list (the machine's Debian
 * mirror, every suite of matrix/apt.c's list, amd64 and arm64), its own
 * index lists, package cache and status file, so neither the machine's
 * apt sources nor its state are read or changed. The indexes are
 * refreshed when older than a day. TESTFS_DEBIAN_MIRROR=URL replaces the
 * mirror (its -security sibling serves the security suites).
 *
 * Every function that fails says why in @why: the command that failed
 * and what it printed.
 */
#ifndef TESTFS_MATRIX_APT_H
#define TESTFS_MATRIX_APT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the private configuration and updates its indexes when they are
 * older than a day, their mirror changed, or @refresh. A suite that does
 * not answer is a warning on stderr while another did; none answering
 * (and no older indexes) is a failure. 0, or -errno.
 */
int apt_ready(bool refresh, char *why, size_t whylen);

/*
 * The names of the packages matching the extended regular expression
 * @regex (apt-cache search --names-only), one a line, malloc'd into
 * *@names ("" for none). Needs apt_ready(). 0, or -errno.
 */
int apt_search(const char *regex, char **names, char *why, size_t whylen);

/*
 * @field ("Version", "Depends", "Size", ...) of the newest version of
 * @pkg into @out. 0, -ENOENT (no such package or field), or -errno.
 */
int apt_field(const char *pkg, const char *field, char *out, size_t len,
	      char *why, size_t whylen);

/* The suite serving the newest version of @pkg ("" if not known). */
void apt_suite(const char *pkg, char *out, size_t len);

/*
 * Fetches the newest version of each package of @pkgs (NULL-ended) into
 * @dir (created with its parents) as PACKAGE_VERSION_ARCH.deb, unless a
 * .deb of it is there already. Downloads go to a temporary folder first:
 * @dir never holds a partial file. A line per package on stdout, tagged
 * "[@tag]". 0, or -errno.
 */
int apt_fetch(const char *const *pkgs, const char *dir, const char *tag,
	      char *why, size_t whylen);

/* The newest @pkg_*.deb in @dir into @out; false if none. */
bool apt_deb_path(const char *dir, const char *pkg, char *out, size_t len);

#endif
