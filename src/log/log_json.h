/* SPDX-License-Identifier: MIT */
/*
 * The JSON Lines form of the read log, shared by MOUNT/.testfs/log and the
 * --log file so both say exactly the same thing.
 */
#ifndef TESTFS_LOG_JSON_H
#define TESTFS_LOG_JSON_H

#include <stdint.h>

#include "strbuf.h"
#include "log_record.h"

/*
 * Appends @rec as one JSON object and a newline. @file is the name of the
 * file the record's inode serves (reads and accesses; ignored for marks);
 * @page_size (the kernel's) converts bytes into the page fields and is
 * stated in every record that has pages ("page_size"). A read ends with
 * its cause and, when the cause is known, its window; an access record is
 * {"seq", "access": "fault"|"read"|"map", "file", "ino", "page", "pages",
 * "page_size", "t_ns", "end_ns", "pid", "events", "late"}.
 */
void log_json_record(struct strbuf *sb, const struct log_record *rec,
		     const char *file, uint32_t page_size);

/* Appends the line that stands for @count lost records from @first_seq. */
void log_json_lost(struct strbuf *sb, uint64_t first_seq, uint64_t count);

#endif
