# tests: build fragment (see Makefile.am)
