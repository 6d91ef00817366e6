package io.gpupool.localstack.secure;

import java.util.Locale;

/**
 * The users of the secured stack, one per part of gpupool: each is a SCRAM user of the broker (its Kafka
 * principal {@code User:<name>}) and a user of the registry. Only the admin changes anything beyond its
 * own topics; see {@link StackAcls} for what each may do.
 */
public enum StackPrincipal {
    /** The broker itself and {@code gpupool up}'s setup: a super user, and the registry's admin. */
    ADMIN,
    /** The scheduler: reads every input, writes the journal, decisions, node commands, snapshots and dead letters. */
    SCHEDULER,
    /** The sinks: read node commands, write job events (and dead letters). */
    SINK,
    /** The collectors: write inventory and telemetry. */
    COLLECTOR,
    /** Users and tools that submit: write jobs, read decisions. */
    SUBMITTER,
    /** Auditors: read every gpupool topic, write nothing. */
    AUDITOR;

    public String user() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String kafkaPrincipal() {
        return "User:" + user();
    }
}
