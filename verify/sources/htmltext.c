/* SPDX-License-Identifier: Apache-2.0 */
/* htmltext.c - readable text of a web page (libxml2's push parser, SAX: memory
 * bounded by the text, not the tree) and quote normalisation. */
#include "htmltext.h"

#include "dl_xml.h"

#include <string.h>
#include <strings.h>

static bool skipped_element(const char *name)
{
	static const char *const skip[] = {"script", "style", "noscript", "template", "head"};
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (!strcasecmp(name, skip[i]))
			return true;
	return false;
}

static bool inline_element(const char *name)
{
	/* Inline elements join their text to their neighbours'; every other
	 * element is a block boundary and gets a space. */
	static const char *const inl[] = {
	    "a",    "abbr", "b",    "bdi",  "bdo", "cite", "code", "data",   "dfn",  "em",
	    "font", "i",    "kbd",  "mark", "q",   "s",    "samp", "small",  "span", "strong",
	    "sub",  "sup",  "time", "tt",   "u",   "var",  "wbr",  "strike", "big",  "nobr"};
	for (size_t i = 0; i < sizeof inl / sizeof inl[0]; i++)
		if (!strcasecmp(name, inl[i]))
			return true;
	return false;
}

/* Page chrome: navigation, banners, footers and sidebars change with the
 * site, not with what a page says, so the main text leaves them out (by
 * element, or by the ARIA role that marks a div as one). */
static bool chrome_element(const char *name, const xmlChar **attrs)
{
	static const char *const chrome[] = {"nav",  "header", "footer", "aside", "menu",
	                                     "form", "dialog", "button", "select"};
	for (size_t i = 0; i < sizeof chrome / sizeof chrome[0]; i++)
		if (!strcasecmp(name, chrome[i]))
			return true;
	static const char *const roles[] = {"navigation",    "banner", "contentinfo",
	                                    "complementary", "search", "dialog",
	                                    "alert",         "menu",   "menubar"};
	for (size_t a = 0; attrs && attrs[a]; a += 2) {
		const char *k = (const char *)attrs[a], *v = (const char *)attrs[a + 1];
		if (!strcasecmp(k, "hidden") ||
		    (v && !strcasecmp(k, "aria-hidden") && !strcasecmp(v, "true")))
			return true;
		for (size_t i = 0;
		     v && !strcasecmp(k, "role") && i < sizeof roles / sizeof roles[0]; i++)
			if (!strcasecmp(v, roles[i]))
				return true;
	}
	return false;
}

/* SAX state: the whole text so far; the main text (chrome left out) of the
 * body and of <main>/<article> when the page marks one; how deep inside
 * skipped, chrome and main elements we are. */
struct sax_text {
	isotier_strbuf b;
	isotier_strbuf body;   /* main text outside chrome, NULL buf when unused */
	isotier_strbuf marked; /* the same, only inside <main> or role=main */
	bool want_main;
	size_t skip_depth, chrome_depth, main_depth;
};

static void add_text(struct sax_text *t, const char *s, size_t n)
{
	isotier__strbuf_add(&t->b, s, n);
	if (!t->want_main || t->chrome_depth)
		return;
	isotier__strbuf_add(&t->body, s, n);
	if (t->main_depth)
		isotier__strbuf_add(&t->marked, s, n);
}

static bool main_element(const char *name, const xmlChar **attrs)
{
	if (!strcasecmp(name, "main"))
		return true;
	for (size_t a = 0; attrs && attrs[a] && attrs[a + 1]; a += 2)
		if (!strcasecmp((const char *)attrs[a], "role") &&
		    !strcasecmp((const char *)attrs[a + 1], "main"))
			return true;
	return false;
}

static void sax_start(void *ctx, const xmlChar *name, const xmlChar **attrs)
{
	struct sax_text *t = ctx;
	if (!name)
		return;
	const char *n = (const char *)name;
	if (t->skip_depth || skipped_element(n)) {
		t->skip_depth++;
		return;
	}
	if (!inline_element(n))
		add_text(t, " ", 1);
	/* Every element inside chrome or main counts, so each end pops one. */
	if (t->chrome_depth || chrome_element(n, attrs))
		t->chrome_depth++;
	if (t->main_depth || main_element(n, attrs))
		t->main_depth++;
}

static void sax_end(void *ctx, const xmlChar *name)
{
	struct sax_text *t = ctx;
	if (!name)
		return;
	if (t->skip_depth) {
		t->skip_depth--;
		return;
	}
	if (t->chrome_depth)
		t->chrome_depth--;
	if (t->main_depth)
		t->main_depth--;
	if (!inline_element((const char *)name))
		add_text(t, " ", 1);
}

static void sax_chars(void *ctx, const xmlChar *ch, int n)
{
	struct sax_text *t = ctx;
	if (!t->skip_depth && n > 0)
		add_text(t, (const char *)ch, (size_t)n);
}

/* libxml2 reports through these; quiet, as HTML_PARSE_NOERROR asks. */
static void sax_quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

#define HTML_CHUNK (64 * 1024)

int isotier_html_available(isotier_error *err)
{
	return isotier__dl_xml_open(err);
}

int isotier_html_text(char **out, const char *html, size_t len, const char *encoding)
{
	return isotier_html_texts(out, NULL, html, len, encoding);
}

int isotier_html_texts(char **out, char **main_out, const char *html, size_t len,
                       const char *encoding)
{
	if (len > ISOTIER_HTML_MAX_BYTES)
		return ISOTIER_EDATA;
	if (isotier__dl_xml_open(NULL) < 0)
		return ISOTIER_EUNAVAILABLE;
	/* The push parser with SAX callbacks: no tree is built, so memory is
	 * the text plus the parser's element stack, whatever the nesting (a
	 * tree of a 5 MiB page of nested tags took 315 MB). XML_PARSE_HUGE
	 * lifts the 256-level depth limit, past which libxml2 silently drops
	 * the rest of the page (a quote inside reads as gone: false drift). */
	int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
	           HTML_PARSE_NONET | HTML_PARSE_COMPACT | XML_PARSE_HUGE;
	htmlSAXHandler sax;
	memset(&sax, 0, sizeof sax);
	sax.startElement = sax_start;
	sax.endElement = sax_end;
	sax.characters = sax_chars;
	sax.cdataBlock = sax_chars;
	sax.ignorableWhitespace = sax_chars;
	sax.warning = sax_quiet;
	sax.error = sax_quiet;
	struct sax_text t = {.want_main = main_out != NULL};
	isotier__strbuf_add(&t.b, "", 0);
	if (main_out) {
		isotier__strbuf_add(&t.body, "", 0);
		isotier__strbuf_add(&t.marked, "", 0);
	}
	htmlParserCtxtPtr ctxt =
	    htmlCreatePushParserCtxt(&sax, &t, NULL, 0, NULL, XML_CHAR_ENCODING_NONE);
	if (!ctxt) {
		free(t.b.buf);
		return ISOTIER_ENOMEM;
	}
	htmlCtxtUseOptions(ctxt, opts);
	/* The server's charset; an unknown name: let libxml2 detect it. */
	xmlCharEncodingHandlerPtr handler = encoding ? xmlFindCharEncodingHandler(encoding) : NULL;
	if (handler)
		xmlSwitchToEncoding(ctxt, handler);
	if (!len)
		html = " ", len = 1;
	for (size_t off = 0; off < len && !ctxt->disableSAX;) {
		size_t n = len - off < HTML_CHUNK ? len - off : HTML_CHUNK;
		htmlParseChunk(ctxt, html + off, (int)n, 0);
		off += n;
	}
	htmlParseChunk(ctxt, NULL, 0, 1);
	/* Recovered markup errors are normal; a parse that stopped early (a
	 * limit, "Excessive depth", out of memory) is not the page. */
	int stopped = ctxt->errNo == XML_ERR_INTERNAL_ERROR || ctxt->errNo == XML_ERR_NO_MEMORY ||
	              ctxt->disableSAX > 1;
	htmlFreeParserCtxt(ctxt);
	int rc = t.b.oom || t.body.oom || t.marked.oom ? ISOTIER_ENOMEM
	         : stopped                             ? ISOTIER_EDATA
	                                               : 0;
	if (rc < 0) {
		free(t.b.buf);
		free(t.body.buf);
		free(t.marked.buf);
		return rc;
	}
	*out = t.b.buf;
	if (main_out) {
		/* The page's own mark of its main content wins when it has text;
		 * else the body without its chrome. */
		bool marked = false;
		for (size_t i = 0; i < t.marked.len && !marked; i++)
			marked = t.marked.buf[i] != ' ';
		*main_out = marked ? t.marked.buf : t.body.buf;
		free(marked ? t.body.buf : t.marked.buf);
	} else {
		free(t.body.buf);
		free(t.marked.buf);
	}
	return 0;
}

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length, or 0
 * for an invalid byte. */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned int *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t len;
	unsigned int v;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		v = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		v = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		v = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

static size_t utf8_encode(unsigned int cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static bool is_space(unsigned int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	       c == 0x205f || c == 0x3000;
}

char *isotier_text_normalise(const char *text, size_t len)
{
	/* The output is never longer than 3x the input ("\u2026" -> "..." is
	 * 3 bytes for 3). */
	char *out = malloc(len * 3 + 1);
	if (!out)
		return NULL;
	const unsigned char *s = (const unsigned char *)text;
	size_t o = 0, i = 0;
	bool pending_space = false;
	while (i < len) {
		unsigned int cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (n == 0) {
			i++;
			continue;
		}
		i += n;
		if (is_space(cp)) {
			pending_space = o > 0;
			continue;
		}
		const char *rep = NULL;
		switch (cp) {
		case 0xad:
		case 0x200b:
		case 0x200c:
		case 0x200d:
		case 0x2060:
		case 0xfeff: continue; /* soft hyphen, zero-width characters */
		case 0x2018:
		case 0x2019:
		case 0x201a:
		case 0x201b:
		case 0x2032: rep = "'"; break;
		case 0x201c:
		case 0x201d:
		case 0x201e:
		case 0x201f:
		case 0x2033:
		case 0xab:
		case 0xbb: rep = "\""; break;
		case 0x2010:
		case 0x2011:
		case 0x2012:
		case 0x2013:
		case 0x2014:
		case 0x2015:
		case 0x2212: rep = "-"; break;
		case 0x2026: rep = "..."; break;
		default: break;
		}
		if (pending_space) {
			out[o++] = ' ';
			pending_space = false;
		}
		if (rep) {
			size_t rl = strlen(rep);
			memcpy(out + o, rep, rl);
			o += rl;
			continue;
		}
		if (cp >= 'A' && cp <= 'Z')
			cp += 'a' - 'A';
		else if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7)
			cp += 0x20; /* Latin-1 capitals */
		o += utf8_encode(cp, out + o);
	}
	out[o] = '\0';
	return out;
}

int isotier_text_has_quote(const char *normalised_page, const char *quote)
{
	char *q = isotier_text_normalise(quote, strlen(quote));
	if (!q)
		return ISOTIER_ENOMEM;
	int found = strstr(normalised_page, q) != NULL;
	free(q);
	return found;
}
