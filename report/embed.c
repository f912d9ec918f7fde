// SPDX-License-Identifier: MIT
/*
 * Build helper: writes a C file defining `const char NAME[]` with the
 * bytes of a file, so the page's CSS and JS live in their own files
 * (readable, checked by an editor) and are still compiled into the
 * program. Usage: embed NAME INPUT OUTPUT
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *in, *out;
	int c, col = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: embed NAME INPUT OUTPUT\n");
		return 2;
	}
	in = fopen(argv[2], "rb");
	if (!in) {
		perror(argv[2]);
		return 1;
	}
	out = fopen(argv[3], "w");
	if (!out) {
		perror(argv[3]);
		fclose(in);
		return 1;
	}
	fprintf(out, "/* Generated from %s by embed.c. */\n", argv[2]);
	fprintf(out, "extern const char %s[];\nconst char %s[] = {\n", argv[1],
		argv[1]);
	while ((c = getc(in)) != EOF) {
		/* A character escape fits signed and unsigned char. */
		fprintf(out, "'\\x%02x',", c);
		if (++col == 12) {
			fputc('\n', out);
			col = 0;
		}
	}
	fprintf(out, "0 };\n");
	if (ferror(in) || fclose(out)) {
		fprintf(stderr, "embed: %s: read or write error\n", argv[2]);
		fclose(in);
		return 1;
	}
	fclose(in);
	return 0;
}
