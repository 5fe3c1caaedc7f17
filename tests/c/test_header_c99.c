/* SPDX-License-Identifier: BSD-3-Clause */
/* Proves that the public header compiles on its own as strict C99
 * (-std=c99 -Wall -Wextra -pedantic -Werror). */
#include "tensorc.h"

int main(void) { return 0; }
