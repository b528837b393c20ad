# systemd/: units (socket activation), tmpfiles. Installed to the unit dir from configure.
systemdsystemunit_DATA = systemd/suspendd.service
tmpfilesdir = $(prefix)/lib/tmpfiles.d
tmpfiles_DATA = systemd/suspendd.conf
systemd/suspendd.service: $(srcdir)/systemd/suspendd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && sed -e 's|@sbindir[@]|$(sbindir)|g' $< > $@
systemd/suspendd.conf: $(srcdir)/systemd/suspendd.tmpfiles
	$(AM_V_GEN)$(MKDIR_P) systemd && cp $< $@
CLEANFILES += systemd/suspendd.service systemd/suspendd.conf
EXTRA_DIST += systemd/suspendd.service.in systemd/suspendd.tmpfiles
dist_systemdsystemunit_DATA = systemd/suspendd.socket
