/* SPDX-License-Identifier: MIT */
/*
 * Lab kernels: Debian's linux-source-6.12 with patch series of the
 * project's kernel/ folder, built by kernel/build.sh into the kernel cache
 * (kernels/lab-6.12, kernels/lab-6.12+vma-limit, ...) and named by SPECs
 * lab:6.12, lab:6.12+SERIES[+SERIES...].
 */
#ifndef TESTFS_MATRIX_LAB_H
#define TESTFS_MATRIX_LAB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "patchset.h"

#define LAB_MAX_SERIES 8
#define LAB_MAX_PATCHES 32
#define LAB_MAX_FIELDS 16

/* Whether @spec is a lab SPEC ("lab:..."). */
bool lab_is_spec(const char *spec);

/*
 * The one architecture a lab kernel is built for besides x86-64: arm64
 * with 64 KiB pages, through the cross compiler (build.sh --arch; SPECs
 * lab:7.3/arm64-64k, lab:7.3+vma-limit/arm64-64k).
 */
#define LAB_ARM64_64K "arm64-64k"

/* A lab SPEC's "/ARCH" tail without the '/', or NULL (x86-64). */
const char *lab_spec_arch(const char *spec);

/*
 * Checks a lab SPEC: the source version and that every series exists in
 * kernel/ (when kernel/ can be found). 0, or -EINVAL with the reason.
 */
int lab_check_spec(const char *spec, char *why, size_t whylen);

/* Why an uncached lab SPEC cannot run, with the command that builds it. */
void lab_not_built(const char *spec, char *why, size_t whylen);

/*
 * kernel/ of the source tree this build was made from (when run from the
 * build tree), else the installed copy; TESTFS_KERNEL_DIR overrides both.
 * False if it has no build.sh.
 */
bool lab_kernel_dir(char *out, size_t len);

/*
 * Whether @s is a series of kernel/ (kernel/MAJOR.x/@s for the line @ver,
 * or kernel/@s); -EINVAL with the reason (and the known series) if not.
 * @kdir NULL checks the name only.
 */
int lab_check_series(const char *kdir, const char *ver, const char *s,
		     char *why, size_t whylen);

/* Lists the lab SPECs kernel/ can build, built or not. */
void lab_list(void);

/* One patch of a --patch file, written out clean into the cache. */
struct lab_patch_file {
	char name[PATCH_NAME_MAX + 4]; /* its part of the SPEC */
	char subject[256];
	char from[PATH_MAX / 2]; /* the --patch FILE it came from */
	char path[PATH_MAX];	 /* cache/patches/HASH/NAME[.K].patch */
};

/* What `build` and `bisect` build: a source, series, patch files. */
struct lab_req {
	const char *source; /* debian:VERSION or a kernel tree's path */
	char latest[32];    /* debian:latest resolved: "debian:7.3" */
	const char *series[LAB_MAX_SERIES];
	size_t nseries;
	const char *files[LAB_MAX_PATCHES]; /* --patch FILE, in order */
	size_t nfiles;
	struct lab_patch_file patches[LAB_MAX_PATCHES];
	size_t npatches;
	int fuzz;
	const char *jobs;
	const char *arch; /* NULL (x86-64) or LAB_ARM64_64K */
	bool force;
	bool one_tree; /* build every variant in one tree (bisect) */
	/* bisect only */
	const char *fields[LAB_MAX_FIELDS];
	size_t nfields;
	const char *json;
	int timeout_s;
	bool all; /* go on after the first change */
};

/*
 * Parses build's (or, with @bisect, bisect's) options into @r; optind is
 * left at the first argument that is not one (bisect's COMMAND). 0, or 2
 * after a usage message on stderr.
 */
int lab_req_parse(int argc, char **argv, bool bisect, struct lab_req *r);

/*
 * Checks the series and reads the --patch files into @r->patches, written
 * clean into the cache. With @split each patch gets its own name (bisect
 * steps over them); else the patches of one file share the file's. 0, 2
 * (bad input, said on stderr) or 1 (the cache cannot be written).
 */
int lab_req_prepare(struct lab_req *r, bool split, const char *cmd);

/*
 * Builds the source with the series and the first @npatches patches
 * through kernel/build.sh (its progress on stderr) and puts the SPEC in
 * @spec. 0, 1 (failed: a patch that does not apply, the build), 2 (bad
 * input build.sh found).
 */
int lab_req_build(const struct lab_req *r, size_t npatches, char *spec,
		  size_t len, const char *cmd);

/*
 * testfs-matrix build [--source debian:VERSION|PATH] [--patches SERIES]...
 * [--patch FILE]... [--fuzz N] [--jobs N] [--arch arm64-64k] [--force]:
 * runs kernel/build.sh
 * with its progress on stderr and prints the SPEC. 0, 1 (the build
 * failed), 2 (bad arguments).
 */
int cmd_build(int argc, char **argv);

/*
 * testfs-matrix bisect --source S --patch P1 ... [--field NAME]...
 * [--json FILE] COMMAND [ARGS...]: builds the source with the first k
 * patches for k = 0..n, runs COMMAND on each and names the first patch
 * after which the fields change. 0 (found, or none changes), 1 (a build or
 * a run failed), 2 (bad arguments).
 */
int cmd_bisect(int argc, char **argv);

#endif
