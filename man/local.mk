# man: build fragment (see Makefile.am). Hand-written roff; keep in step with --help,
# daemon/core/config.c and client/suspendctl.h.
dist_man_MANS += man/suspendd.8 man/suspendctl.1 man/suspendd.conf.5 man/libsuspendctl.3
