/* SPDX-License-Identifier: Apache-2.0 */
/*
 * isotier_tool.h - what only tools need of libisotier: the one header the
 * isotier CLI (verify/) includes besides the public include/isotier.h.
 *
 * Not installed and no ABI: these declarations are the library's hidden
 * symbols (built with -fvisibility=hidden), reachable only by linking
 * $(BUILD)/libisotier-tool.a, as the CLI and backend-run do (the installed
 * libisotier.a has them local). An application uses isotier.h alone. The CLI
 * calls nothing of the library but what this header and isotier.h declare,
 * with the headers they include: tests/integration/layers.sh checks the
 * includes, and every library symbol verify/'s objects leave undefined. What
 * is here, by layer:
 *
 *   base/       errors, tiers, verdicts, strings, UTF-8 and JSON, files, redaction
 *   catalogue/  the provider catalogue: loading, validation, lookup, mechanisms
 *   reference/  backends and their registry, the observation lifecycle, the
 *               probe-output parser, the judge, kernel identity, resolution
 *               against the history, the history database, child processes,
 *               install paths, the one HTTP client (`sources check` fetches
 *               pages with it)
 *
 * A tool that needs more of the library adds it here, with a line saying
 * why, rather than including a library header of its own choosing.
 */
#ifndef ISOTIER_TOOL_H
#define ISOTIER_TOOL_H

#include "../../base/base.h"
#include "../../base/verdict.h"
#include "../../catalogue/catalogue.h"
#include "../backends/backend.h"
#include "../history/history.h"
#include "../core/http.h"
#include "../evidence/judge.h"
#include "../evidence/kernel_id.h"
#include "../observation/observe.h"
#include "../core/paths.h"
#include "../evidence/probe_result.h"
#include "../core/proc.h"
#include "../history/renewal.h"
#include "resolve.h"
/* verify and sweep release what a run that died left behind (leases). */
#include "../backends/sweep.h"
/* verify signs what it records; `isotier identity` and `statement verify`. */
#include "../attestation/identity.h"
#include "../attestation/statement.h"
/* verify judges a remote backend's observation as the testimony it is. */
#include "../attestation/testimony.h"
/* verify --sandbox-id refuses an id by the remote backends' own rule
 * (isotier__remote_id_valid) before anything runs. */
#include "../backends/remote/remote.h"

#endif
