/* SPDX-License-Identifier: MIT */
/**
 * @file testfs.h
 *
 * libtestfs: readahead extents as test data.
 *
 * Start a testfs daemon on a private mountpoint (or attach to one that
 * runs already), map, mprotect-split and read its files, and ask which
 * pages the kernel fetched. Link with `pkg-config --cflags --libs testfs`.
 *
 * Conventions, as in liburing: every function that can fail returns 0 (or
 * a count, or a file descriptor) on success and a negative errno on
 * failure; none of them prints, exits or touches errno's meaning for the
 * caller. Pages are the kernel's pages of the file, page ranges
 * inclusive [first, last]: in a log, pages of the page size of the
 * kernel the daemon ran on (testfs_log_page_size(), from the log's
 * header); in the calls that map, read, advise or ask the page cache
 * (testfs_map(), testfs_read_pages(), testfs_cachestat() ...), pages of
 * the running kernel (testfs_page_size(), sysconf(_SC_PAGESIZE)). On a
 * 4 KiB kernel page 0 is bytes 0..4095, on a 16 KiB one bytes 0..16383.
 * Before TESTFS_0.7 the library counted 4096-byte pages whatever the
 * kernel's page size.
 *
 * The daemon always runs in a separate process: a page fault on the mount
 * blocks the faulting task until the daemon answers, so a server in the
 * same process could deadlock its own client.
 *
 * Cleanup: testfs_start() passes the caller's pid to the daemon
 * (--watch-pid), so when the test process exits or is killed, even by
 * SIGKILL or a crash in a Criterion-forked test, the daemon unmounts and
 * exits by itself; and the daemon mounts with auto_unmount, so a killed
 * daemon leaves no mount either. testfs_stop() is still the normal way.
 *
 * The library's ABI. libtestfs.so.0 exports only testfs_* names, each
 * with the symbol version (lib/testfs.map) of the release that added it
 * or last changed what it does, so a program built against this header
 * keeps running on every later libtestfs.so.0:
 *
 *  - Sized structs: a struct the caller allocates and the library reads
 *    or fills (testfs_config, testfs_settings, testfs_usage,
 *    testfs_histograms, testfs_page_age, testfs_cachestat) starts with
 *    `size_t struct_size`, the sizeof of the struct as the caller's header
 *    declared it; its TESTFS_*_INIT initialiser sets it, and the calls
 *    that fill one (testfs_settings(), testfs_log_usage(),
 *    testfs_log_histograms(), testfs_log_page_age(), testfs_cachestat())
 *    are macros that set it to the caller's sizeof, so an output struct
 *    needs no initialiser. 0 stands for the
 *    size as of TESTFS_0.5, the first version with the field; a size
 *    below sizeof(size_t) or above 64 KiB is -EINVAL. The library reads
 *    (testfs_config) or fills (the others) the first min(struct_size, its
 *    own sizeof) bytes and never a byte past them, and sets a filled
 *    struct's struct_size to the bytes it filled: a program built against
 *    an older header is served its smaller struct, one built against a
 *    newer header sees which fields an older library left alone.
 *  - Records (testfs_record, testfs_access, testfs_window) belong to the
 *    library and are reached by pointer (testfs_log_at(),
 *    testfs_log_access_at(), testfs_log_window_at()); the array of
 *    testfs_log_records() is stepped through by testfs_record_stride()
 *    (testfs_records_step()), never by sizeof, so records may grow.
 *  - Value types the caller owns and passes back (testfs_extent,
 *    testfs_extents, testfs_map, testfs_pattern) are fixed: their fields
 *    and size never change; what they lack gets a new type.
 *
 * Changing this header, the rule: add a field only at the end of a sized
 * struct or a record, with 0 (or false, NULL) meaning what the library
 * did before the field existed; never remove, reorder, retype or
 * redefine a field, nor change an enum value or a constant. A new
 * function goes into a new version node of lib/testfs.map (TESTFS_0.6
 * after TESTFS_0.5); a function whose behaviour changes for programs
 * already built gets a new node too, and lib/abi.c keeps serving the old
 * node the old behaviour (as testfs_log_page_age@TESTFS_0.3 does). The
 * layout test, tests/abi_layout.c, writes down sizeof and offsetof of
 * every public struct: a change that moves one fails it; a field added by
 * the rule is added there too.
 */
#ifndef TESTFS_H
#define TESTFS_H

/* The parts, one a topic, each including what it needs. */
#include <testfs/common.h>
#include <testfs/pattern.h>
#include <testfs/folios.h>

#include <testfs/extents.h>
#include <testfs/instance.h>
#include <testfs/control.h>
#include <testfs/log.h>
#include <testfs/correlation.h>
#include <testfs/client.h>
#include <testfs/checks.h>

#endif
