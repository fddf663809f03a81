/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_JUMP_LABEL_H
#define PVMAP_SHIM_LINUX_JUMP_LABEL_H

#include <stdbool.h>

/* A static key is a plain flag here; the test sets it. */
struct static_key_false {
	bool enabled;
};

#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name = { false }
#define static_branch_unlikely(key)	((key)->enabled)

#endif
