/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_probe_replay.c - the probe's replay readers (every signal module and
 * the classifier) over hostile capture files. Input: records of one byte
 * naming the file (an index into paths[] below), two bytes of big-endian
 * length, then the content (tests/fuzz/seeds.py writes the fixtures so).
 * The files are handed to probe_run through the input cache, as a replay
 * root would: nothing live is read. paths[] holds every file the probe's
 * readers take (probes/sig_*.c, run.c; arm64's device tree and MIDR among
 * them). tests/fuzz/seeds.py reads the list from this file, and fails when a
 * reader in probes/ calls probe_read on a literal path that is not in it. Properties: the JSON
 * report is valid UTF-8 JSON with no key twice, its observed_tier is the verdict's, every layer
 * kind is one the schema knows; the human report is inert on a terminal. */
#include "fuzz.h"

#include <cJSON.h>

#include "probe.h"

static const char *const paths[] = {
    "/.probe/ns", "/proc/version", "/.probe/uname", "/.probe/timing", "/.probe/cpuid",
    "/proc/cmdline", "/.probe/syscalls", "/proc/self/uid_map", "/proc/self/status",
    "/proc/self/mountinfo", "/proc/self/cgroup", "/proc/1/comm", "/.probe/pid", "/.probe/kmsg",
    "/sys/class/dmi/id/sys_vendor", "/.probe/virtio", "/.dockerenv",
    "/sys/class/dmi/id/product_name", "/proc/cpuinfo", "/proc/1/environ",
    "/sys/bus/pci/devices/0000:00:00.0/vendor", "/sys/bus/pci/devices/0000:00:00.0/device",
    "/sys/firmware/acpi/tables/DSDT", "/sys/class/dmi/id/bios_vendor",
    "/sys/bus/virtio/devices/virtio0/vendor", "/run/systemd/container", "/proc/stat",
    "/proc/sys/kernel/random/boot_id", "/sys/hypervisor/type", "/sys/firmware/acpi/tables/FACP",
    "/sys/firmware/acpi/tables/APIC",
    /* From here on, appended (an earlier record's index keeps its meaning):
     * every other file a reader in probes/ takes through probe_read. arm64:
     * the device tree and MIDR_EL1 as live_arm64.c writes them, the PTP clock. */
    "/.probe/midr", "/.probe/devicetree", "/sys/class/ptp/ptp0/clock_name",
    "/sys/class/dmi/id/board_vendor", "/.probe/msr", "/.probe/identity",
    /* What probe_path_exists answers from (/dev/sev-guest, /proc/vz, /proc/xen,
     * /proc/device-tree/ibm,partition-name, ...): the lists a capture keeps. */
    "/.probe/paths", "/.probe/dev", "/run/.containerenv", "/run/host/container-manager",
    "/proc/1/sched", "/proc/1/cgroup", "/proc/xen/capabilities",
    "/proc/device-tree/hypervisor/compatible", "/proc/sysinfo",
    "/sys/bus/virtio/devices/virtio1/vendor"};
#define NPATHS (sizeof paths / sizeof *paths)

static void add(struct probe_input *in, const char *path, const uint8_t *data, size_t n)
{
	for (size_t i = 0; i < in->ncache; i++)
		if (!strcmp(in->cache[i].path, path))
			return; /* first record wins, as one file would */
	if (n > PROBE_MAX_FILE)
		n = PROBE_MAX_FILE;
	struct probe_cached *c = &in->cache[in->ncache++];
	c->path = strdup(path);
	c->data = malloc(n + 1);
	if (!c->path || !c->data)
		abort();
	memcpy(c->data, data, n);
	c->data[n] = '\0';
	if (!strcmp(path, "/proc/1/environ"))
		n = probe_redact_environ(c->data, n); /* as the reader does */
	c->len = (ssize_t)n;
}

static void put_human(FILE *f, const char *s)
{
	(void)s;
	(void)f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_result res;
	struct probe_input in;
	memset(&in, 0, sizeof in);
	in.root = "/nonexistent-fuzz-replay"; /* a replay with no directory: nothing live */
	in.root_fd = -1;
	in.capture_fd = -1;
	for (size_t off = 0; off + 3 <= size;) {
		size_t idx = data[off] % NPATHS, n = (size_t)data[off + 1] << 8 | data[off + 2];
		off += 3;
		if (n > size - off)
			n = size - off;
		add(&in, paths[idx], data + off, n);
		off += n;
	}
	memset(&res, 0, sizeof res);
	probe_run(&in, &res);
	probe_input_free(&in);
	(void)put_human;

	char *json = NULL, *human = NULL;
	size_t jl = 0, hl = 0;
	FILE *f = open_memstream(&json, &jl);
	probe_report_json(f, &res);
	fclose(f);
	f = open_memstream(&human, &hl);
	probe_report_human(f, &res);
	fclose(f);

	FUZZ_ASSERT(isotier__utf8_valid(json, jl), "probe JSON is not UTF-8");
	cJSON *doc = cJSON_ParseWithLength(json, jl);
	FUZZ_ASSERT(doc, "probe JSON does not parse");
	FUZZ_ASSERT(!isotier__json_duplicate_key(doc), "probe JSON has a key twice");
	const cJSON *tier = cJSON_GetObjectItemCaseSensitive(doc, "observed_tier");
	FUZZ_ASSERT(cJSON_IsString(tier) && !strcmp(tier->valuestring, res.verdict.tier),
	            "observed_tier is not the verdict's");
	const cJSON *layers = cJSON_GetObjectItemCaseSensitive(doc, "layers"), *l;
	FUZZ_ASSERT(cJSON_IsArray(layers), "no layers array");
	cJSON_ArrayForEach(l, layers)
	{
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(l, "kind");
		FUZZ_ASSERT(cJSON_IsString(k) && (!strcmp(k->valuestring, "vm") ||
		                                  !strcmp(k->valuestring, "gvisor") ||
		                                  !strcmp(k->valuestring, "container")),
		            "unknown layer kind");
	}
	cJSON_Delete(doc);
	fuzz_assert_inert(human, "\n", "", "probe_report_human");
	free(json);
	free(human);
	return 0;
}
