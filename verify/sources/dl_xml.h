/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dl_xml.h - libxml2, loaded on first use (dlopen) rather than linked:
 * only the text of a fetched page (`sources check`, htmltext.c) needs it, and linking it costs
 * every start of isotier its dependencies' relocations. Include this instead of the library's
 * header: after it, each function used below names its pointer in the loaded table, so call sites
 * read as plain calls. A file that calls a new function of the library adds it to
 * ISOTIER_DL_XML_SYMBOLS and to the list of #defines (the link of the CLI fails otherwise).
 */
#ifndef ISOTIER_DL_XML_H
#define ISOTIER_DL_XML_H

#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>

#include "../../reference/api/isotier_tool.h"

#define ISOTIER_DL_XML_SONAME  "libxml2.so.2"
#define ISOTIER_DL_XML_PACKAGE "libxml2" /* Debian package providing it */

#define ISOTIER_DL_XML_SYMBOLS(X)                                                                  \
	X(htmlCreatePushParserCtxt)                                                                \
	X(htmlCtxtUseOptions)                                                                      \
	X(htmlFreeParserCtxt)                                                                      \
	X(htmlParseChunk)                                                                          \
	X(xmlFindCharEncodingHandler)                                                              \
	X(xmlSwitchToEncoding)

struct isotier__dl_xml_syms {
#define ISOTIER_DL_FIELD(f) __typeof__(&f) f;
	ISOTIER_DL_XML_SYMBOLS(ISOTIER_DL_FIELD)
#undef ISOTIER_DL_FIELD
};

/* Loads libxml2.so.2 and every symbol above, once per process (thread-safe).
 * Returns 0, or ISOTIER_EUNAVAILABLE naming the library (or the missing
 * symbol) and the package to install; every later call says the same. */
int isotier__dl_xml_open(isotier_error *err);

/* The table, loading it if no isotier__dl_xml_open() did. Entry points call
 * isotier__dl_xml_open() first and report its error: reached unloaded, this
 * prints why on stderr and aborts rather than call through NULL. */
const struct isotier__dl_xml_syms *isotier__dl_xml(void);

#ifndef ISOTIER_DL_XML_NO_MAP
#define htmlCreatePushParserCtxt   (isotier__dl_xml()->htmlCreatePushParserCtxt)
#define htmlCtxtUseOptions         (isotier__dl_xml()->htmlCtxtUseOptions)
#define htmlFreeParserCtxt         (isotier__dl_xml()->htmlFreeParserCtxt)
#define htmlParseChunk             (isotier__dl_xml()->htmlParseChunk)
#define xmlFindCharEncodingHandler (isotier__dl_xml()->xmlFindCharEncodingHandler)
#define xmlSwitchToEncoding        (isotier__dl_xml()->xmlSwitchToEncoding)
#endif

#endif
