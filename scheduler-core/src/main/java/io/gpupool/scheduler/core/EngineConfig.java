package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How one pool's engine behaves. Build it directly, or from {@code key=value} settings with
 * {@link #fromSettings(Map)} (what {@code gpupool replay --policy NAME --set k=v} does).
 *
 * @param poolId                      prefix of decision ids
 * @param policy                      scoring policy
 * @param staleTelemetryTimeoutMs     GPUs without telemetry for longer go unhealthy; 0 disables
 * @param temperatureThresholdC       GPUs hotter than this go unhealthy
 * @param evictAndRequeueOnFailure    evict (and requeue) jobs on hardware that fails
 * @param criticalXids                Xids that take a GPU out of service
 * @param busyUtilisationPct          utilisation at or above which an allocated GPU counts as busy
 * @param finishedJobsRetained        finished jobs kept for queries (oldest dropped first)
 * @param fgdWindow                   arrivals remembered for the job-size mix of the fgd policy
 * @param backfill                    EASY backfill behind a head-of-queue reservation
 * @param preemption                  higher classes may evict lower-class preemptible jobs
 * @param consolidationMaxEvictions   evictions per consolidation to free room for a gang; 0 disables
 * @param defaultRuntimeMs            runtime assumed when no estimate is known
 * @param fairShareHalfLifeMs         half-life of the GPU-time each tenant used, for fair share
 * @param tenants                     per-tenant quota; tenants not named get {@link TenantConfig#DEFAULT}
 * @param bestFitCpuWeight            0: best-fit ranks by GPUs left (fast, indexed); w in (0, 1]: by
 *                                    w x CPU left / largest node CPU + (1 - w) x milli-GPU left / largest node
 *                                    GPUs, evaluated over the candidate nodes (the FGD paper's BestFit uses 0.5,
 *                                    scored as an integer 0..100 as kube-scheduler plugins do)
 * @param seed                        seed of the engine's only randomness (the random policy, random ties); a
 *                                    placement's draw is a hash of seed, job id and node, so it needs no state
 * @param fgdPopularityPct            the fgd policy weighs the most frequent shapes of the window that together make up
 *                                    this percent of its arrivals (FGD's typical pods; its published runs use 95)
 * @param fgdIntegerScore             the fgd policy ranks by FGD's plugin score, int(100 x sigmoid(fragmentation
 *                                    decrease in GPUs, frequencies normalised)), instead of the exact decrease
 * @param randomTies                  break ties between equally scored placements at random (seeded, per job)
 *                                    instead of by pool order, as FGD's simulator (kube-scheduler) does
 * @param consolidationCooldownMs     stream time after consolidation moved a job (or moved others to place it)
 *                                    during which consolidation does not move it; 0 disables
 * @param consolidationWindowMs       the sliding window of the pool's consolidation budget
 * @param consolidationWindowMaxEvictions jobs consolidation may move in the pool per window; 0: no pool budget
 * @param leafCongestedPct            a leaf whose nodes' uplinks average at least this utilisation (percent) is
 *                                    congested: multi-node jobs avoid it
 * @param finishedJobRetentionMs      stream time a finished job's id stays taken in the placer's job book (a
 *                                    resubmit is DUPLICATE_JOB) and its decision history queryable; then both go and
 *                                    the id may be used again. 0 keeps them forever
 * @param failpoint                   a deliberate failure for drills and tests ({@link Failpoint#NONE} normally)
 * @param maxWaitingJobs              jobs the pool lets wait at most; a submit that finds the queue this long is
 *                                    REJECTED QUEUE_FULL (load shed, said in the decision) instead of growing a
 *                                    backlog that no later capacity drains in time; 0: no limit
 */
public record EngineConfig(String poolId, ScoringPolicy policy, long staleTelemetryTimeoutMs,
                           int temperatureThresholdC, boolean evictAndRequeueOnFailure,
                           SortedSet<Integer> criticalXids, int busyUtilisationPct, int finishedJobsRetained,
                           int fgdWindow, boolean backfill, boolean preemption, int consolidationMaxEvictions,
                           long defaultRuntimeMs, long fairShareHalfLifeMs, Map<String, TenantConfig> tenants,
                           double bestFitCpuWeight, long seed, boolean randomTies, int fgdPopularityPct,
                           boolean fgdIntegerScore, long consolidationCooldownMs, long consolidationWindowMs,
                           int consolidationWindowMaxEvictions, int leafCongestedPct, long finishedJobRetentionMs,
                           Failpoint failpoint, int maxWaitingJobs) {

    public static final SortedSet<Integer> DEFAULT_CRITICAL_XIDS = Collections.unmodifiableSortedSet(
            new TreeSet<>(List.of(48, 63, 64, 74, 79, 92, 94, 95, 119, 120)));

    /** Seven days: finished jobs stay queryable (and their ids taken) for a week of stream time. */
    public static final long DEFAULT_FINISHED_JOB_RETENTION_MS = 7L * 24 * 3_600_000;

    /**
     * Waiting jobs per pool before submits are shed: a queue pass costs the same at this depth as with an empty
     * queue (scheduler-core/README.md, "bench queue"), and the engine snapshot stays in the tens of MB.
     */
    public static final int DEFAULT_MAX_WAITING_JOBS = 100_000;

    public EngineConfig {
        Objects.requireNonNull(poolId, "poolId");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(failpoint, "failpoint");
        criticalXids = Collections.unmodifiableSortedSet(new TreeSet<>(criticalXids));
        tenants = Collections.unmodifiableMap(new TreeMap<>(tenants));
        if (!(bestFitCpuWeight >= 0 && bestFitCpuWeight <= 1)) {
            throw new IllegalArgumentException("best-fit-cpu-weight must be within 0..1, got " + DecimalText.of(bestFitCpuWeight));
        }
        if (staleTelemetryTimeoutMs < 0 || finishedJobsRetained < 0 || fgdWindow < 1
                || fgdPopularityPct < 1 || fgdPopularityPct > 100
                || consolidationMaxEvictions < 0 || defaultRuntimeMs <= 0 || fairShareHalfLifeMs <= 0
                || consolidationCooldownMs < 0 || consolidationWindowMs <= 0 || consolidationWindowMaxEvictions < 0
                || finishedJobRetentionMs < 0 || maxWaitingJobs < 0) {
            throw new IllegalArgumentException("engine config: timeouts, window and counts must be positive");
        }
        if (leafCongestedPct < 1 || leafCongestedPct > 100) {
            throw new IllegalArgumentException("leaf-congested-pct must be within 1..100, got " + leafCongestedPct);
        }
    }

    public static EngineConfig defaults(final String poolId) {
        return new EngineConfig(poolId, ScoringPolicy.BEST_FIT, 120_000, 90, true, DEFAULT_CRITICAL_XIDS, 5,
                10_000, 2_000, true, true, 0, 3_600_000, 3_600_000, Map.of(), 0.0, 0L, false, 100, false,
                1_800_000, 3_600_000, 64, 70, DEFAULT_FINISHED_JOB_RETENTION_MS, Failpoint.NONE, DEFAULT_MAX_WAITING_JOBS);
    }

    public TenantConfig tenant(final String name) {
        return tenants.getOrDefault(name, TenantConfig.DEFAULT);
    }

    public EngineConfig withPolicy(final ScoringPolicy p) {
        return new EngineConfig(poolId, p, staleTelemetryTimeoutMs, temperatureThresholdC, evictAndRequeueOnFailure,
                criticalXids, busyUtilisationPct, finishedJobsRetained, fgdWindow, backfill, preemption,
                consolidationMaxEvictions, defaultRuntimeMs, fairShareHalfLifeMs, tenants, bestFitCpuWeight, seed, randomTies, fgdPopularityPct, fgdIntegerScore,
                consolidationCooldownMs, consolidationWindowMs, consolidationWindowMaxEvictions, leafCongestedPct,
                finishedJobRetentionMs, failpoint, maxWaitingJobs);
    }

    /**
     * This config as settings: every key {@link #fromSettings} reads, defaults included, sorted, so that
     * {@code fromSettings(c.toSettings()).equals(c)}. What the journal and engine snapshots record.
     */
    public SortedMap<String, String> toSettings() {
        return ConfigSettings.of(this);
    }

    /**
     * Builds a config from settings. Keys: pool, policy, stale-telemetry-timeout-ms, temperature-threshold-c,
     * evict-on-failure, critical-xids (comma list), busy-utilisation-pct, finished-jobs-retained, fgd-window,
     * backfill, preemption, consolidation-max-evictions, consolidation-cooldown-ms, consolidation-window-ms,
     * consolidation-window-max-evictions, leaf-congested-pct, finished-job-retention-ms, max-waiting-jobs, default-runtime-ms, fair-share-half-life-ms, best-fit-cpu-weight,
     * seed, random-ties, fgd-popularity-pct, fgd-integer-score, failpoint.allocate, tenant.NAME.guaranteed-gpus, tenant.NAME.weight, tenant.NAME.max-gpus. Unknown keys are an error
     * (a typo must not silently give a different policy).
     */
    public static EngineConfig fromSettings(final Map<String, String> settings) {
        final SortedMap<String, String> s = new TreeMap<>(settings);
        final EngineConfig d = defaults(s.getOrDefault("pool", "pool"));
        final Map<String, TenantConfig> tenants = new TreeMap<>();
        final SortedMap<String, Map<String, String>> tenantKeys = new TreeMap<>();
        for (final Map.Entry<String, String> e : s.entrySet()) {
            final String k = e.getKey();
            if (k.startsWith("tenant.")) {
                final int dot = k.lastIndexOf('.');
                if (dot <= "tenant.".length()) {
                    throw new IllegalArgumentException("setting '" + k + "': use tenant.NAME.guaranteed-gpus|weight|max-gpus");
                }
                tenantKeys.computeIfAbsent(k.substring("tenant.".length(), dot), t -> new TreeMap<>())
                        .put(k.substring(dot + 1), e.getValue());
            } else if (!KNOWN_KEYS.contains(k)) {
                throw new IllegalArgumentException("unknown engine setting '" + k + "'; known: " + KNOWN_KEYS
                        + " and tenant.NAME.guaranteed-gpus|weight|max-gpus");
            }
        }
        for (final Map.Entry<String, Map<String, String>> t : tenantKeys.entrySet()) {
            final SortedMap<String, String> v = new TreeMap<>(t.getValue());
            final int guaranteed = parseInt(v.remove("guaranteed-gpus"), 0, "tenant." + t.getKey() + ".guaranteed-gpus");
            final double weight = parseDouble(v.remove("weight"), 1.0, "tenant." + t.getKey() + ".weight");
            final int max = parseInt(v.remove("max-gpus"), Integer.MAX_VALUE, "tenant." + t.getKey() + ".max-gpus");
            if (!v.isEmpty()) {
                throw new IllegalArgumentException("unknown tenant setting(s) " + v.keySet()
                        + "; use guaranteed-gpus, weight, max-gpus");
            }
            tenants.put(t.getKey(), new TenantConfig(guaranteed, weight, max));
        }
        final TreeSet<Integer> xids = new TreeSet<>();
        if (s.containsKey("critical-xids")) {
            for (final String x : s.get("critical-xids").split(",")) {
                if (!x.isBlank()) {
                    xids.add(parseInt(x.trim(), 0, "critical-xids"));
                }
            }
        } else {
            xids.addAll(d.criticalXids());
        }
        return new EngineConfig(d.poolId(),
                s.containsKey("policy") ? ScoringPolicy.byName(s.get("policy")) : d.policy(),
                parseLong(s.get("stale-telemetry-timeout-ms"), d.staleTelemetryTimeoutMs(), "stale-telemetry-timeout-ms"),
                parseInt(s.get("temperature-threshold-c"), d.temperatureThresholdC(), "temperature-threshold-c"),
                parseBool(s.get("evict-on-failure"), d.evictAndRequeueOnFailure(), "evict-on-failure"),
                xids,
                parseInt(s.get("busy-utilisation-pct"), d.busyUtilisationPct(), "busy-utilisation-pct"),
                parseInt(s.get("finished-jobs-retained"), d.finishedJobsRetained(), "finished-jobs-retained"),
                parseInt(s.get("fgd-window"), d.fgdWindow(), "fgd-window"),
                parseBool(s.get("backfill"), d.backfill(), "backfill"),
                parseBool(s.get("preemption"), d.preemption(), "preemption"),
                parseInt(s.get("consolidation-max-evictions"), d.consolidationMaxEvictions(), "consolidation-max-evictions"),
                parseLong(s.get("default-runtime-ms"), d.defaultRuntimeMs(), "default-runtime-ms"),
                parseLong(s.get("fair-share-half-life-ms"), d.fairShareHalfLifeMs(), "fair-share-half-life-ms"),
                tenants,
                parseDouble(s.get("best-fit-cpu-weight"), d.bestFitCpuWeight(), "best-fit-cpu-weight"),
                parseLong(s.get("seed"), d.seed(), "seed"),
                parseBool(s.get("random-ties"), d.randomTies(), "random-ties"),
                parseInt(s.get("fgd-popularity-pct"), d.fgdPopularityPct(), "fgd-popularity-pct"),
                parseBool(s.get("fgd-integer-score"), d.fgdIntegerScore(), "fgd-integer-score"),
                parseLong(s.get("consolidation-cooldown-ms"), d.consolidationCooldownMs(), "consolidation-cooldown-ms"),
                parseLong(s.get("consolidation-window-ms"), d.consolidationWindowMs(), "consolidation-window-ms"),
                parseInt(s.get("consolidation-window-max-evictions"), d.consolidationWindowMaxEvictions(),
                        "consolidation-window-max-evictions"),
                parseInt(s.get("leaf-congested-pct"), d.leafCongestedPct(), "leaf-congested-pct"),
                parseLong(s.get("finished-job-retention-ms"), d.finishedJobRetentionMs(), "finished-job-retention-ms"),
                Failpoint.parse(s.get(Failpoint.SETTING)),
                parseInt(s.get("max-waiting-jobs"), d.maxWaitingJobs(), "max-waiting-jobs"));
    }

    /**
     * Settings as a journal entry or a snapshot recorded them. A key added after settings began to be recorded
     * is absent from older records, and there it means what the build that wrote them did, not today's default.
     */
    public static EngineConfig fromRecordedSettings(final Map<String, String> recorded) {
        final SortedMap<String, String> s = new TreeMap<>(recorded);
        s.putIfAbsent("max-waiting-jobs", "0"); // builds before the limit let any number wait
        return fromSettings(s);
    }

    private static final Set<String> KNOWN_KEYS = Collections.unmodifiableSet(new TreeSet<>(List.of(
            "pool", "policy", "stale-telemetry-timeout-ms", "temperature-threshold-c", "evict-on-failure",
            "critical-xids", "busy-utilisation-pct", "finished-jobs-retained", "fgd-window", "backfill",
            "preemption", "consolidation-max-evictions", "default-runtime-ms", "fair-share-half-life-ms",
            "best-fit-cpu-weight", "seed", "random-ties", "fgd-popularity-pct", "fgd-integer-score",
            "consolidation-cooldown-ms", "consolidation-window-ms", "consolidation-window-max-evictions",
            "leaf-congested-pct", "finished-job-retention-ms", "max-waiting-jobs", Failpoint.SETTING)));

    /** The keys {@link #fromSettings} takes, sorted, the per-tenant ones last (what --set and --engine list in their help). */
    public static List<String> settingKeys() {
        final List<String> keys = new ArrayList<>(KNOWN_KEYS);
        keys.addAll(TENANT_KEYS);
        return Collections.unmodifiableList(keys);
    }

    private static final List<String> TENANT_KEYS = List.of("tenant.NAME.guaranteed-gpus", "tenant.NAME.weight",
            "tenant.NAME.max-gpus");

    private static int parseInt(final String v, final int dflt, final String key) {
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting " + key + "=" + v + ": expected an integer", e);
        }
    }

    private static long parseLong(final String v, final long dflt, final String key) {
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting " + key + "=" + v + ": expected an integer", e);
        }
    }

    private static double parseDouble(final String v, final double dflt, final String key) {
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting " + key + "=" + v + ": expected a number", e);
        }
    }

    private static boolean parseBool(final String v, final boolean dflt, final String key) {
        if (v == null) {
            return dflt;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes", "1" -> true;
            case "false", "off", "no", "0" -> false;
            default -> throw new IllegalArgumentException("setting " + key + "=" + v + ": expected true or false");
        };
    }
}
