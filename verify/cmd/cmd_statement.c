/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_statement.c - `isotier statement verify FILE`: checks signed
 * statements anywhere (statement.h): one DSSE envelope, or JSON Lines of
 * them, against the public keys named (--key) or this host's own and
 * ISOTIER_TRUSTED_KEYS. */
#include "cli.h"
#include "cli_options.h"

#include <cJSON.h>
#include <string.h>

#define STATEMENT_FILE_MAX (256L * 1024 * 1024)

struct opts {
	isotier_keyring keys;
	bool named, print;
	int rc;
};

static const struct cli_option options[] = {
    CLI_TEXT_OPTION("key", 'k', "PUB",
                    "a trusted public key (PEM, as `isotier identity --public-key` prints);\n"
                    "repeat for several; default: this host's and ISOTIER_TRUSTED_KEYS"),
    CLI_FLAG_OPTION("print", 'p',
                    "print each verified statement (the envelope's payload), one per line"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "statement",
    .synopsis = "usage: isotier statement verify FILE [--key PUB]... [--print]",
    .about = "Verifies signed statements: FILE holds one DSSE envelope or JSON Lines of\n"
             "them (`isotier attest export`). Each must have payloadType\n"
             "application/vnd.in-toto+json, a signature over its PAE that verifies against a\n"
             "trusted key (Ed25519) and a payload that is an in-toto Statement v1. One line\n"
             "per envelope: ok or FAIL, the signing key's id, the predicate type and the\n"
             "first subject.",
    .options = options,
    .operands = true,
    .operands_anywhere = true,
    .epilogue = "Exit status: 0 every envelope verified; 1 one did not; 64 usage; 65 FILE\n"
                "holds no envelope; 66 FILE or a key cannot be read.",
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	(void)number;
	struct opts *o = ctx;
	if (key == 'p') {
		o->print = true;
		return 0;
	}
	if (key != 'k')
		return EXIT_SOFTWARE;
	isotier_error err = {0};
	o->named = true;
	if (isotier__keyring_add_file(&o->keys, value, &err) < 0) {
		cli_error("--key: %s", err.message);
		return EXIT_NOINPUT;
	}
	return 0;
}

/* One envelope: "ok KEYID TYPE SUBJECT" or "FAIL why"; 0 or 1. */
static int verify_one(const struct opts *o, size_t line, const char *text, size_t len)
{
	isotier_error err = {0};
	cleanup_free char *st = NULL;
	char key_id[65];
	if (isotier__statement_open(text, len, &o->keys, &st, key_id, &err) < 0) {
		printf("FAIL line %zu: ", line);
		isotier__fputs_sanitized(stdout, err.message);
		putchar('\n');
		return 1;
	}
	isotier_error ignored = {0};
	cJSON *doc = isotier__json_parse(st, strlen(st), "statement", &ignored);
	const cJSON *pt = cJSON_GetObjectItemCaseSensitive(doc, "predicateType");
	const cJSON *sub = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "subject"), 0);
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sub, "name"));
	printf("ok line %zu key %.16s ", line, key_id);
	isotier__fputs_sanitized(stdout, cJSON_GetStringValue(pt) ? pt->valuestring : "?");
	putchar(' ');
	isotier__fputs_sanitized(stdout, name ? name : "(no subject)");
	putchar('\n');
	if (o->print) {
		isotier__fputs_sanitized(stdout, st);
		putchar('\n');
	}
	cJSON_Delete(doc);
	return 0;
}

static int statement_main(int argc, char **argv)
{
	struct opts o = {0};
	int first = 0;
	int prc = cli_parse(&spec, argc, argv, on_option, &o, &first);
	if (prc) {
		isotier__keyring_clear(&o.keys);
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	}
	if (argc - first != 2 || strcmp(argv[first], "verify")) {
		isotier__keyring_clear(&o.keys);
		cli_usage(&spec, stderr);
		return EXIT_USAGE;
	}
	if (!o.named)
		isotier__keyring_load(&o.keys);
	const char *path = argv[first + 1];
	cleanup_free char *buf = NULL;
	size_t len = 0;
	isotier_error err = {0};
	if (isotier__read_file(&buf, &len, path, STATEMENT_FILE_MAX, &err) < 0) {
		isotier__keyring_clear(&o.keys);
		cli_error("%s", err.message);
		return EXIT_NOINPUT;
	}
	size_t n = 0, failed = 0, line = 0;
	for (char *p = buf, *end; p && p < buf + len; p = end ? end + 1 : NULL) {
		end = memchr(p, '\n', (size_t)(buf + len - p));
		size_t l = end ? (size_t)(end - p) : (size_t)(buf + len - p);
		line++;
		while (l && (p[l - 1] == '\r' || p[l - 1] == ' '))
			l--;
		if (!l)
			continue;
		/* A pretty-printed single envelope is one document, not lines. */
		if (n == 0 && p == buf && p[0] == '{' && l == 1) {
			n++;
			failed += (size_t)verify_one(&o, 1, buf, len);
			break;
		}
		n++;
		failed += (size_t)verify_one(&o, line, p, l);
	}
	isotier__keyring_clear(&o.keys);
	if (!n) {
		cli_error("%s: no envelope", path);
		return EXIT_DATAERR;
	}
	return failed ? EXIT_FINDING : EXIT_OK;
}

const struct cli_command cli_statement = {
    .name = "statement",
    .summary = "verify signed statements (DSSE envelopes) against public keys",
    .main = statement_main,
};
