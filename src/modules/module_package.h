/**
 * @file module_package.h
 * The package each module belongs to, a module fact for blame (docs/classes.md "Blame"): which
 * libraries are the program's own (built from the executable's source package) and which are
 * third-party.
 */
#ifndef CT_MODULE_PACKAGE_H
#define CT_MODULE_PACKAGE_H

#include "modules/modules.h"

/**
 * Fills source_package and source_package_from of every module of @p set, once per set: from the
 * module's FDO package note (its file's, else the one in the dump's memory), else from the
 * analyzing machine's dpkg database when the module's file is the installed file at the dump's path
 * and its build-id matches the dump's (another machine's or another version's file says nothing
 * about the dumped one). Cheap on later calls. A capped database read is a diagnostic.
 */
void ct_modules_find_packages(struct ct_module_set *set);

#endif
