# daemon: build fragment (see Makefile.am)
