/**
 * @file collect.h
 * `coretriage collect`: the core_pattern pipe handler and the watcher of a core directory
 * (docs/fleet.md).
 */
#ifndef CT_CLI_COLLECT_H
#define CT_CLI_COLLECT_H

/** Runs `coretriage collect ARGS` (@p argv[0] is "collect"); returns the exit status. */
int ct_cli_collect(int argc, char **argv);

#endif
