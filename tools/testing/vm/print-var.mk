# SPDX-License-Identifier: GPL-2.0
# Appended with -f to print a variable of another Makefile.
print-%:
	@echo $($*)
