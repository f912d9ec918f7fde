/* SPDX-License-Identifier: MIT */
/*
 * MOUNT/.testfs/: the names a client of a running daemon relies on. The
 * daemon serves these files; libtestfs (and through it every in-tree
 * client) reads and writes them. Kept here, next to the log.bin layout,
 * because renaming one breaks clients built against another version.
 *
 * config is one JSON object. The members clients read:
 *   "version"            the daemon's version string
 *   "mountpoint"         where it is mounted
 *   "pid"                the daemon's process id (in its pid namespace)
 *   "kernel"             uname release
 *   "ra_kb", "max_pages", "max_background", "congestion_threshold":
 *                        {"requested": N|null, "effective": N|null}
 *   "log_capacity"       records the ring holds
 *   "slow"               {"default": "MODEL", ...} (the latency rules)
 *   "trace"              {"on": bool, "why": "...", "reads": bool, ...}
 *   "files"              [{"name": "...", "ino": N, "size": N,
 *                          "pattern": "..."}, ...]
 * Other members may come and go; readers skip what they do not know.
 */
#ifndef TESTFS_CONTROL_DIR_H
#define TESTFS_CONTROL_DIR_H

/* The control directory, relative to the mount's root. */
#define CONTROL_DIR ".testfs"

/* Its files' names, as the directory lists them. */
#define CONTROL_NAME_CTL "ctl"	       /* commands, one per line */
#define CONTROL_NAME_ERROR "error"     /* why the last one failed */
#define CONTROL_NAME_CONFIG "config"   /* settings (JSON) */
#define CONTROL_NAME_LOG_BIN "log.bin" /* log_record.h */
#define CONTROL_NAME_LOG "log"	       /* JSON Lines */
#define CONTROL_NAME_STATS "stats"     /* counters (JSON) */

/* The same files, relative to the mount's root. */
#define CONTROL_PATH_CTL CONTROL_DIR "/" CONTROL_NAME_CTL
#define CONTROL_PATH_ERROR CONTROL_DIR "/" CONTROL_NAME_ERROR
#define CONTROL_PATH_CONFIG CONTROL_DIR "/" CONTROL_NAME_CONFIG
#define CONTROL_PATH_LOG_BIN CONTROL_DIR "/" CONTROL_NAME_LOG_BIN
#define CONTROL_PATH_LOG CONTROL_DIR "/" CONTROL_NAME_LOG
#define CONTROL_PATH_STATS CONTROL_DIR "/" CONTROL_NAME_STATS

#endif
