package io.gpupool.scheduler.core;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * An {@link EngineConfig} as the settings {@link EngineConfig#fromSettings} reads back to it. Every key
 * is written, defaults included, so that the settings journaled or kept in a snapshot mean the same
 * configuration to a later build whose defaults differ; numbers go through {@link DecimalText}, so the
 * text does not depend on the JDK.
 */
final class ConfigSettings {
    private ConfigSettings() {
    }

    static SortedMap<String, String> of(final EngineConfig c) {
        final SortedMap<String, String> s = new TreeMap<>();
        s.put("pool", c.poolId());
        s.put("policy", c.policy().policyName());
        s.put("stale-telemetry-timeout-ms", Long.toString(c.staleTelemetryTimeoutMs()));
        s.put("temperature-threshold-c", Integer.toString(c.temperatureThresholdC()));
        s.put("evict-on-failure", Boolean.toString(c.evictAndRequeueOnFailure()));
        s.put("critical-xids", c.criticalXids().stream().map(String::valueOf).collect(Collectors.joining(",")));
        s.put("busy-utilisation-pct", Integer.toString(c.busyUtilisationPct()));
        s.put("finished-jobs-retained", Integer.toString(c.finishedJobsRetained()));
        s.put("fgd-window", Integer.toString(c.fgdWindow()));
        s.put("backfill", Boolean.toString(c.backfill()));
        s.put("preemption", Boolean.toString(c.preemption()));
        s.put("consolidation-max-evictions", Integer.toString(c.consolidationMaxEvictions()));
        s.put("default-runtime-ms", Long.toString(c.defaultRuntimeMs()));
        s.put("fair-share-half-life-ms", Long.toString(c.fairShareHalfLifeMs()));
        s.put("best-fit-cpu-weight", DecimalText.of(c.bestFitCpuWeight()));
        s.put("seed", Long.toString(c.seed()));
        s.put("random-ties", Boolean.toString(c.randomTies()));
        s.put("fgd-popularity-pct", Integer.toString(c.fgdPopularityPct()));
        s.put("fgd-integer-score", Boolean.toString(c.fgdIntegerScore()));
        s.put("consolidation-cooldown-ms", Long.toString(c.consolidationCooldownMs()));
        s.put("consolidation-window-ms", Long.toString(c.consolidationWindowMs()));
        s.put("consolidation-window-max-evictions", Integer.toString(c.consolidationWindowMaxEvictions()));
        s.put("leaf-congested-pct", Integer.toString(c.leafCongestedPct()));
        s.put("finished-job-retention-ms", Long.toString(c.finishedJobRetentionMs()));
        s.put("max-waiting-jobs", Integer.toString(c.maxWaitingJobs()));
        s.put(Failpoint.SETTING, c.failpoint().text());
        for (final Map.Entry<String, TenantConfig> t : c.tenants().entrySet()) {
            final String prefix = "tenant." + t.getKey() + ".";
            s.put(prefix + "guaranteed-gpus", Integer.toString(t.getValue().guaranteedGpus()));
            s.put(prefix + "weight", DecimalText.of(t.getValue().weight()));
            s.put(prefix + "max-gpus", Integer.toString(t.getValue().maxGpus()));
        }
        return Collections.unmodifiableSortedMap(s);
    }
}
