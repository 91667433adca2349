/**
 * @file sample.h
 * `coretriage sample -p PID` (docs/live.md): the profile of a running process.
 */
#ifndef CT_CLI_SAMPLE_H
#define CT_CLI_SAMPLE_H

#include "cli/options.h"

/** Samples the process, writes the profile; returns the exit status. */
int ct_cli_sample(const struct ct_cli *cli);

#endif
