# SPDX-License-Identifier: GPL-2.0
"""Host-side helpers shared by pvmap's tools: QMP, KTAP and console checks."""
