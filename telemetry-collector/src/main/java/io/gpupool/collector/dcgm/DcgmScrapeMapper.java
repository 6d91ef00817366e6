package io.gpupool.collector.dcgm;

import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.gpu.MigMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps a dcgm-exporter scrape onto the same GPU readings nvidia-smi gives, keyed by the UUID
 * label. With MIG, dcgm-exporter labels series with the GPU instance (GPU_I_ID): such a series
 * marks the GPU MIG-enabled; device-wide fields (temperature, power, clocks, ECC, remaps, Xid) are
 * taken from it when the GPU has no device-level series, framebuffer use is summed over the
 * instances, and utilisation is left null (it is not defined per GPU under MIG). Series without a
 * UUID cannot be attributed and are reported.
 */
public final class DcgmScrapeMapper {
    private static final Set<String> DEVICE_WIDE = Set.of(DcgmFields.GPU_TEMP, DcgmFields.POWER_USAGE,
            DcgmFields.POWER_MGMT_LIMIT, DcgmFields.ENFORCED_POWER_LIMIT, DcgmFields.SM_CLOCK, DcgmFields.XID_ERRORS,
            DcgmFields.ECC_DBE_VOL_TOTAL, DcgmFields.ROW_REMAP_PENDING, DcgmFields.ROW_REMAP_FAILURE,
            DcgmFields.RETIRED_PENDING, DcgmFields.FB_TOTAL);
    private static final Set<String> SUMMED_OVER_INSTANCES = Set.of(DcgmFields.FB_USED, DcgmFields.FB_FREE);

    private DcgmScrapeMapper() {
    }

    public static GpuSnapshot map(final String label, final String scrapeText) {
        final PrometheusTextParser.Result parsed = PrometheusTextParser.parse(scrapeText);
        final Map<String, Map<String, Double>> valuesByUuid = new LinkedHashMap<>();
        final Map<String, Map<String, Double>> instanceValuesByUuid = new LinkedHashMap<>();
        final Map<String, GpuReading.Builder> builders = new LinkedHashMap<>();
        final List<String> warnings = new ArrayList<>();
        if (parsed.skippedLines() > 0) {
            warnings.add(label + ": skipped " + parsed.skippedLines() + " unreadable line(s)");
        }
        String driver = null;
        int unattributed = 0;
        for (final PromSample s : parsed.samples()) {
            if (!s.name().startsWith("DCGM_FI_")) {
                continue;
            }
            final String uuid = s.label("UUID");
            if (uuid == null || uuid.isBlank()) {
                unattributed++;
                continue;
            }
            final GpuReading.Builder b = builders.computeIfAbsent(uuid, GpuReading::builder);
            final String gpu = s.label("gpu");
            if (gpu != null && gpu.matches("\\d+")) {
                b.index(Integer.valueOf(gpu));
            }
            if (s.label("modelName") != null) {
                b.name(s.label("modelName"));
            }
            if (s.label("pci_bus_id") != null) {
                b.pciBusId(s.label("pci_bus_id"));
            }
            if (driver == null && s.label("DCGM_FI_DRIVER_VERSION") != null) {
                driver = s.label("DCGM_FI_DRIVER_VERSION");
            }
            if (s.label("GPU_I_ID") != null && !s.label("GPU_I_ID").isEmpty()) {
                b.migMode(MigMode.ENABLED);
                if (s.value() != null) {
                    final Map<String, Double> inst = instanceValuesByUuid.computeIfAbsent(uuid, k -> new LinkedHashMap<>());
                    if (SUMMED_OVER_INSTANCES.contains(s.name())) {
                        inst.merge(s.name(), s.value(), Double::sum);
                    } else if (DEVICE_WIDE.contains(s.name())) {
                        inst.putIfAbsent(s.name(), s.value());
                    }
                }
                continue;
            }
            // A field missing (blank sentinel) stays absent, so it maps to null below.
            if (s.value() != null) {
                valuesByUuid.computeIfAbsent(uuid, k -> new LinkedHashMap<>()).putIfAbsent(s.name(), s.value());
            }
        }
        if (unattributed > 0) {
            warnings.add(label + ": " + unattributed + " DCGM series without a UUID label could not be attributed to a GPU");
        }
        final List<GpuReading> gpus = new ArrayList<>();
        for (final Map.Entry<String, GpuReading.Builder> e : builders.entrySet()) {
            final Map<String, Double> values = new LinkedHashMap<>(instanceValuesByUuid.getOrDefault(e.getKey(), Map.of()));
            values.putAll(valuesByUuid.getOrDefault(e.getKey(), Map.of())); // device-level series win
            gpus.add(fill(e.getValue(), values));
        }
        return new GpuSnapshot(label, driver, gpus, warnings);
    }

    private static GpuReading fill(final GpuReading.Builder b, final Map<String, Double> v) {
        b.utilizationGpuPct(v.get(DcgmFields.GPU_UTIL));
        b.utilizationMemoryPct(v.get(DcgmFields.MEM_COPY_UTIL));
        final Long used = whole(v.get(DcgmFields.FB_USED));
        final Long free = whole(v.get(DcgmFields.FB_FREE));
        b.memoryUsedMiB(used);
        final Long total = whole(v.get(DcgmFields.FB_TOTAL));
        b.memoryTotalMiB(total != null ? total : used != null && free != null ? used + free : null);
        b.temperatureC(v.get(DcgmFields.GPU_TEMP));
        b.powerDrawW(v.get(DcgmFields.POWER_USAGE));
        b.powerLimitW(v.getOrDefault(DcgmFields.ENFORCED_POWER_LIMIT, v.get(DcgmFields.POWER_MGMT_LIMIT)));
        final Long sm = whole(v.get(DcgmFields.SM_CLOCK));
        b.smClockMHz(sm == null ? null : Math.toIntExact(sm));
        b.eccUncorrectableVolatile(whole(v.get(DcgmFields.ECC_DBE_VOL_TOTAL)));
        b.remappedRowsPending(flag(v.get(DcgmFields.ROW_REMAP_PENDING)));
        b.remappedRowsFailure(flag(v.get(DcgmFields.ROW_REMAP_FAILURE)));
        b.retiredPagesPending(flag(v.get(DcgmFields.RETIRED_PENDING)));
        // DCGM_FI_DEV_XID_ERRORS holds the last Xid seen (0 = none). It is reported as is: the sample
        // says "this GPU's last Xid is N", and a consumer treats a repeat across samples as one event.
        final Long xid = whole(v.get(DcgmFields.XID_ERRORS));
        if (xid != null) {
            b.xidCodes(xid == 0 ? List.of() : List.of(Math.toIntExact(xid)));
        }
        return b.build();
    }

    private static Long whole(final Double d) {
        return d == null ? null : Math.round(d);
    }

    private static Boolean flag(final Double d) {
        return d == null ? null : d != 0;
    }
}
