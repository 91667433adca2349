/**
 * @file history.h
 * `coretriage buckets`: queries of the crash store (src/store/, docs/fleet.md).
 */
#ifndef CT_CLI_HISTORY_H
#define CT_CLI_HISTORY_H

/** Runs `coretriage buckets ARGS` (@p argv[0] is "buckets"); returns the exit status. */
int ct_cli_history(int argc, char **argv);

#endif
