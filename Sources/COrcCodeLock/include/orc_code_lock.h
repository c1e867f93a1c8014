#ifndef WEBIMAGE_ORC_CODE_LOCK_H
#define WEBIMAGE_ORC_CODE_LOCK_H

/// Whether libvips' calls to liborc's orc_program_compile and orc_program_free reach this
/// module's definitions, which take them one at a time (orc_code_lock.c says why): 1 when
/// the program exports them, which linkers do for a symbol a linked shared library uses.
/// Without it, libvips' orc vector code is not safe on several threads with liborc 0.4.33.
int webimage_orc_code_lock_installed(void);

/// How many orc programs were compiled or freed through the lock so far.
long webimage_orc_code_lock_calls(void);

#endif
