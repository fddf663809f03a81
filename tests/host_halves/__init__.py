# SPDX-License-Identifier: GPL-2.0
"""The host halves of the guest tests, registered under each test's name
(tools/host/pvmaplib/halves/ is the machinery: HostHalf, and the Dispatcher
that routes a run's lines to them and gives each test's verdict). One module
per family, named in the test catalog's "host half" column."""

from . import audit, drm, patterns, pv, vgpu  # noqa: F401: they register
