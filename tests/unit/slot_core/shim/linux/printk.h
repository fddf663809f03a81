/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_PRINTK_H
#define PVMAP_SHIM_LINUX_PRINTK_H

/*
 * Counted apart from WARNs (a warning, not a bug report), and printed as a
 * KTAP comment; never ratelimited, so that a test sees each one.
 */
extern unsigned int pvmap_shim_pr_warnings;
void pvmap_shim_pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define pr_warn(...)			pvmap_shim_pr_warn(__VA_ARGS__)
#define pr_warn_ratelimited(...)	pvmap_shim_pr_warn(__VA_ARGS__)

#endif
