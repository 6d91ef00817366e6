package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.EngineConfig;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * How a stage-1 processor appends to the journal: before the first entry it writes for a pool after
 * it starts, the engine settings that pool runs with ({@link Journal#settings}), so that the journal
 * records the configuration its entries were decided under. Within one process the settings do not
 * change, so once per pool per processor start is enough; another processor of the same process
 * writing the same settings too is harmless (equal settings change nothing). The set of pools done is
 * in memory only: after a restart the settings are journaled again, possibly changed.
 */
final class JournalWriter {
    private final Function<String, EngineConfig> configs;
    private final SchedulerMetrics metrics;
    /** Pools whose settings this processor has journaled since it started (a membership test only). */
    private final Set<String> settingsJournaled = new HashSet<>();
    private ProcessorContext<Object, Object> context;

    JournalWriter(final Function<String, EngineConfig> configs, final SchedulerMetrics metrics) {
        this.configs = configs;
        this.metrics = metrics;
    }

    /** Called from the processor's init: a processor started again journals the settings again. */
    void init(final ProcessorContext<Object, Object> ctx) {
        this.context = ctx;
        settingsJournaled.clear();
    }

    /** Appends a journal record ({@link Journal#entry} or {@link Journal#clockTick}), its pool's settings first. */
    void append(final Record<Object, Object> entry) {
        final String pool = (String) entry.key();
        if (settingsJournaled.add(pool)) {
            context.forward(Journal.settings(pool, entry.timestamp(), configs.apply(pool).toSettings()), Journal.SINK);
            metrics.journaled("settings");
        }
        context.forward(entry, Journal.SINK);
    }
}
