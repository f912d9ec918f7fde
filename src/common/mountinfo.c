// SPDX-License-Identifier: MIT
#include "mountinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* Undoes the octal escapes (\040 for a space ...) of mountinfo paths. */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

int mountinfo_each(int (*fn)(const char *mnt, const struct mount_entry *e,
			     void *arg),
		   void *arg)
{
	char *line = NULL, *field[5], *save, *sep;
	struct mount_entry e;
	unsigned maj, min;
	size_t cap = 0;
	FILE *f;
	int i, r = 0;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (!r && getline(&line, &cap, f) > 0) {
		/* id parent maj:min root mountpoint ... - fstype source ... */
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		field[0] = strtok_r(line, " \n", &save);
		for (i = 1; i < 5 && field[i - 1]; i++)
			field[i] = strtok_r(NULL, " \n", &save);
		if (!field[0] || !field[4])
			continue;
		unescape(field[4]);
		e.dev = sscanf(field[2], "%u:%u", &maj, &min) == 2
				? makedev(maj, min)
				: 0;
		if (sscanf(sep + 3, "%63s", e.fstype) != 1)
			e.fstype[0] = '\0';
		r = fn(field[4], &e, arg);
	}
	free(line);
	fclose(f);
	return r;
}

struct find {
	const char *dir;
	struct mount_entry *out;
	bool found;
};

static int find_one(const char *mnt, const struct mount_entry *e, void *arg)
{
	struct find *want = arg;

	/* The last match is the mount on top. */
	if (strcmp(mnt, want->dir) == 0) {
		want->found = true;
		if (want->out)
			*want->out = *e;
	}
	return 0;
}

bool mountinfo_find(const char *dir, struct mount_entry *out)
{
	struct find want = { .dir = dir, .out = out };

	mountinfo_each(find_one, &want);
	return want.found;
}

bool mountinfo_is_testfs(const char *dir)
{
	struct mount_entry e;

	return mountinfo_find(dir, &e) && strcmp(e.fstype, "fuse.testfs") == 0;
}
