package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.JobEvent;
import java.util.Comparator;

/**
 * One job event as a sink reported it, with its position on the job-events topic. Events of
 * different jobs sit on different partitions and arrive in any interleaving, so the reality check
 * orders them by when the sink saw them, and by position only to break ties deterministically.
 */
public record ReportedEvent(int partition, long offset, JobEvent event) {

    /** When it happened (occurredAt), then topic position. */
    public static final Comparator<ReportedEvent> ORDER = Comparator.comparingLong(ReportedEvent::atMs)
            .thenComparingInt(ReportedEvent::partition).thenComparingLong(ReportedEvent::offset);

    public long atMs() {
        return event.getOccurredAt().toEpochMilli();
    }
}
