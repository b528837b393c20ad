# kernel-patches: build fragment (see Makefile.am)
