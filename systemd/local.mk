# systemd/: units (socket activation), tmpfiles. Installed to the unit dir from configure.
systemdsystemunit_DATA = systemd/suspendd.service
tmpfilesdir = $(prefix)/lib/tmpfiles.d
tmpfiles_DATA = systemd/suspendd.conf
systemd/suspendd.service: $(srcdir)/systemd/suspendd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && sed -e 's|@sbindir[@]|$(sbindir)|g' $< > $@
systemd/suspendd.conf: $(srcdir)/systemd/suspendd.tmpfiles
	$(AM_V_GEN)$(MKDIR_P) systemd && cp $< $@
# The opt-in drop-in that routes systemctl suspend through suspendd (enable/undo: in the file).
pkgdata_DATA = systemd/systemd-suspend.conf
systemd/systemd-suspend.conf: $(srcdir)/systemd/systemd-suspend.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@pkgdatadir[@]|$(pkgdatadir)|g' $< > $@
sysusersdir = $(prefix)/lib/sysusers.d
sysusers_DATA = systemd/sysusers/suspendd.conf
systemd/sysusers/suspendd.conf: $(srcdir)/systemd/suspendd.sysusers
	$(AM_V_GEN)$(MKDIR_P) systemd/sysusers && cp $< $@
CLEANFILES += systemd/suspendd.service systemd/suspendd.conf systemd/systemd-suspend.conf \
	systemd/sysusers/suspendd.conf
EXTRA_DIST += systemd/suspendd.service.in systemd/suspendd.tmpfiles systemd/systemd-suspend.conf.in \
	systemd/suspendd.sysusers
dist_systemdsystemunit_DATA = systemd/suspendd.socket
