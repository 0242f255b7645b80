// SPDX-License-Identifier: GPL-2.0
/*
 * insnmark begin|end: start or end a phase of the instruction profile
 * from a shell (insnmark.h).
 */
#include <stdio.h>
#include <string.h>

#include "insnmark.h"

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "begin")) {
		insnmark_begin();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "end")) {
		insnmark_end();
		return 0;
	}
	fprintf(stderr, "usage: insnmark begin|end\n");
	return 2;
}
