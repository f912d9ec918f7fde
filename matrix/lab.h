/* SPDX-License-Identifier: MIT */
/*
 * Lab kernels: Debian's linux-source-6.12 with patch series of the
 * project's kernel/ folder, built by kernel/build.sh into the kernel cache
 * (kernels/lab-6.12, kernels/lab-6.12+vma-limit, ...) and named by SPECs
 * lab:6.12, lab:6.12+SERIES[+SERIES...].
 */
#ifndef TESTFS_MATRIX_LAB_H
#define TESTFS_MATRIX_LAB_H

#include <stdbool.h>
#include <stddef.h>

/* Whether @spec is a lab SPEC ("lab:..."). */
bool lab_is_spec(const char *spec);

/*
 * Checks a lab SPEC: the source version and that every series exists in
 * kernel/ (when kernel/ can be found). 0, or -EINVAL with the reason.
 */
int lab_check_spec(const char *spec, char *why, size_t whylen);

/* Why an uncached lab SPEC cannot run, with the command that builds it. */
void lab_not_built(const char *spec, char *why, size_t whylen);

/* Lists the lab SPECs kernel/ can build, built or not. */
void lab_list(void);

/*
 * testfs-matrix build [--source debian:6.12] [--patches SERIES]...
 * [--jobs N] [--force]: runs kernel/build.sh with its progress on stderr
 * and prints the SPEC. 0, 1 (the build failed), 2 (bad arguments).
 */
int cmd_build(int argc, char **argv);

#endif
