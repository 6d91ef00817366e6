package io.gpupool.scheduler.stream;

import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * How to run the scheduler application.
 *
 * @param clientOverrides  Kafka client settings on top of the profile (a --command-config file: security, ...)
 * @param production       use the production profile (RF 3, min ISR 2, standby replicas) instead of the local one
 * @param httpHost         host other instances reach this one at (application.server); "" = no HTTP server
 * @param httpPort         0 = any free port
 * @param engineSettings   EngineConfig settings shared by all pools (policy, tenants, ...)
 * @param snapshotEvery    journal entries between two engine snapshots of a pool
 * @param tickIntervalMs   stream time between two clock ticks in the journal
 * @param maxClockAheadMs  how far ahead of this scheduler's clock an input record's time may be before it is
 *                         journaled at the bound instead (no producer's clock moves the pool's)
 * @param membership       static membership (instance id, session timeout) and standby replicas
 * @param tenantTopics     also read every tenant's job topic ({@code <jobs>.<tenant>}); a job written to one is
 *                         that tenant's, and one naming another tenant is rejected (DESIGN.md, "Tenants")
 * @param shedJournalBacklog journal entries the placer may have not applied before stage 1 sheds new job submits
 *                         (REJECTED OVERLOADED; {@link JournalBacklog}); 0 never sheds
 */
public record SchedulerOptions(String applicationId, String bootstrapServers, String registryUrl,
                               Properties clientOverrides, boolean production, Path stateDir, String httpHost,
                               int httpPort, Map<String, String> engineSettings, int snapshotEvery, long tickIntervalMs,
                               TopicCatalog catalog, long maxClockAheadMs, Membership membership,
                               boolean tenantTopics, long shedJournalBacklog) {
    public static final String DEFAULT_APPLICATION_ID = "gpupool-scheduler";
    /**
     * Journal entries between engine snapshots. A snapshot stops the placer: with a 4,096-node pool
     * and 20,000 running jobs it takes 70-130 ms once warm (the log line "pool P snapshot N" and
     * gpupool_engine_snapshot_seconds give the parts; 250-400 ms while the whole job book went into
     * every snapshot). At 20,000 entries (every 1.5 s at 5,000 requests/s) that was a fifth of the
     * placer's time; at 50,000 it is a few percent. A restart replays at most this many tail entries
     * from its store before its first new decision, so this bounds the restart too: 50,000 entries are
     * one to a few seconds at the engine's rate (300,000, the old value, were most of a minute cold).
     * A snapshot over 1 MB and 256 bytes per entry of this stretches it, up to 4x (PlacerProcessor#entriesPerSnapshot).
     */
    public static final int DEFAULT_SNAPSHOT_EVERY = 50_000;
    public static final long DEFAULT_TICK_INTERVAL_MS = 5_000;

    public SchedulerOptions {
        if (snapshotEvery < 1) {
            throw new IllegalArgumentException("snapshot interval must be at least 1 journal entry");
        }
        if (tickIntervalMs < 1) {
            throw new IllegalArgumentException("tick interval must be at least 1 ms");
        }
        if (maxClockAheadMs < 0) {
            throw new IllegalArgumentException("the allowed clock skew must not be negative");
        }
        if (shedJournalBacklog < 0) {
            throw new IllegalArgumentException("the journal backlog limit must be 0 (never shed) or more");
        }
        engineSettings = Map.copyOf(engineSettings);
    }

    /** Reading the shared jobs topic only. */
    public SchedulerOptions(final String applicationId, final String bootstrapServers, final String registryUrl,
                            final Properties clientOverrides, final boolean production, final Path stateDir,
                            final String httpHost, final int httpPort, final Map<String, String> engineSettings,
                            final int snapshotEvery, final long tickIntervalMs, final TopicCatalog catalog,
                            final long maxClockAheadMs, final Membership membership) {
        this(applicationId, bootstrapServers, registryUrl, clientOverrides, production, stateDir, httpHost, httpPort,
                engineSettings, snapshotEvery, tickIntervalMs, catalog, maxClockAheadMs, membership, false,
                JournalBacklog.DEFAULT_LIMIT);
    }

    /** These options, reading tenants' job topics too or not. */
    public SchedulerOptions withTenantTopics(final boolean read) {
        return new SchedulerOptions(applicationId, bootstrapServers, registryUrl, clientOverrides, production, stateDir,
                httpHost, httpPort, engineSettings, snapshotEvery, tickIntervalMs, catalog, maxClockAheadMs, membership,
                read, shedJournalBacklog);
    }

    /** These options with another limit on the placer's backlog before new submits are shed (0: never). */
    public SchedulerOptions withShedJournalBacklog(final long entries) {
        return new SchedulerOptions(applicationId, bootstrapServers, registryUrl, clientOverrides, production, stateDir,
                httpHost, httpPort, engineSettings, snapshotEvery, tickIntervalMs, catalog, maxClockAheadMs, membership,
                tenantTopics, entries);
    }

    /** With the default membership ({@link Membership#defaults()}: a derived instance id). */
    public SchedulerOptions(final String applicationId, final String bootstrapServers, final String registryUrl,
                            final Properties clientOverrides, final boolean production, final Path stateDir,
                            final String httpHost, final int httpPort, final Map<String, String> engineSettings,
                            final int snapshotEvery, final long tickIntervalMs, final TopicCatalog catalog,
                            final long maxClockAheadMs) {
        this(applicationId, bootstrapServers, registryUrl, clientOverrides, production, stateDir, httpHost, httpPort,
                engineSettings, snapshotEvery, tickIntervalMs, catalog, maxClockAheadMs, Membership.defaults());
    }

    /** With the default clock skew ({@link SchedulerTopology#DEFAULT_MAX_CLOCK_AHEAD_MS}). */
    public SchedulerOptions(final String applicationId, final String bootstrapServers, final String registryUrl,
                            final Properties clientOverrides, final boolean production, final Path stateDir,
                            final String httpHost, final int httpPort, final Map<String, String> engineSettings,
                            final int snapshotEvery, final long tickIntervalMs, final TopicCatalog catalog) {
        this(applicationId, bootstrapServers, registryUrl, clientOverrides, production, stateDir, httpHost, httpPort,
                engineSettings, snapshotEvery, tickIntervalMs, catalog, SchedulerTopology.DEFAULT_MAX_CLOCK_AHEAD_MS);
    }

    public static SchedulerOptions local(final String bootstrap, final String registryUrl, final Path stateDir,
                                         final int httpPort) {
        return new SchedulerOptions(DEFAULT_APPLICATION_ID, bootstrap, registryUrl, new Properties(), false, stateDir,
                "127.0.0.1", httpPort, Map.of(), DEFAULT_SNAPSHOT_EVERY, DEFAULT_TICK_INTERVAL_MS, TopicCatalog.defaults());
    }
}
