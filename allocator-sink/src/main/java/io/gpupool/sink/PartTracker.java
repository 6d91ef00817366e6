package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.apply.PartObserver;
import io.gpupool.sink.events.JobEventPublisher;
import io.gpupool.sink.events.JobEvents;
import io.gpupool.sink.ledger.AppliedLedger;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The parts this sink runs now, and what happens when one starts or ends: a ledger line, a job
 * event, the listeners. A part is settled exactly once, by whoever {@link #claim claims} it first:
 * its natural end (COMPLETED / FAILED) or a stop command (EVICTED / RELEASED).
 */
final class PartTracker implements PartObserver {

    private final Map<String, JobPart> live = new ConcurrentHashMap<>();
    private final Map<PartKey, String> current = new ConcurrentHashMap<>();
    private final AppliedLedger ledger;
    private final JobEventPublisher publisher;
    private final List<SinkListener> listeners = new CopyOnWriteArrayList<>();

    PartTracker(final AppliedLedger ledger, final JobEventPublisher publisher) {
        this.ledger = ledger;
        this.publisher = publisher;
    }

    void addListener(final SinkListener listener) {
        listeners.add(listener);
    }

    List<SinkListener> listeners() {
        return listeners;
    }

    void register(final JobPart part) {
        live.put(part.commandId(), part);
        current.put(part.key(), part.commandId());
        busyChanged();
    }

    /** The part that runs for this job on this node, if any. */
    Optional<JobPart> current(final PartKey key) {
        return Optional.ofNullable(current.get(key)).map(live::get);
    }

    /** Whether the part is registered and nobody claimed it yet. */
    boolean isLive(final JobPart part) {
        return live.containsKey(part.commandId());
    }

    /** Takes the part out of the running set; true only for the first caller, who then settles it. */
    boolean claim(final JobPart part) {
        if (live.remove(part.commandId()) == null) {
            return false;
        }
        current.remove(part.key(), part.commandId());
        busyChanged();
        return true;
    }

    int running() {
        return live.size();
    }

    Set<String> busyGpus() {
        final Set<String> busy = new HashSet<>();
        live.values().forEach(p -> busy.addAll(p.gpuUuids()));
        return busy;
    }

    Map<PartKey, JobPart> snapshot() {
        final Map<PartKey, JobPart> m = new HashMap<>();
        live.values().forEach(p -> m.put(p.key(), p));
        return m;
    }

    @Override
    public void started(final JobPart part, final long pid) {
        // For a process, its own start time: a restarted sink checks the pid still names the same process.
        final long at = pid < 0 ? System.currentTimeMillis() : ProcessHandle.of(pid)
                .flatMap(h -> h.info().startInstant()).map(Instant::toEpochMilli).orElse(System.currentTimeMillis());
        // Also for a part a stop claimed while it was starting (it waited for its GPUs): that stop runs
        // next, and a sink that restarts before it is over must find the process to stop.
        ledger.started(part, pid, at);
        if (!live.containsKey(part.commandId())) {
            return; // the stop reports the part's end
        }
        publisher.publish(JobEvents.ofPart(part, JobEventType.STARTED, Instant.now(), null, null));
        listeners.forEach(l -> l.partStarted(part));
    }

    @Override
    public void ended(final JobPart part, final Outcome outcome) {
        if (!claim(part)) {
            return; // already stopped by a command: that path reports it
        }
        final Integer code = outcome.exitCode().isPresent() ? outcome.exitCode().getAsInt() : null;
        final JobEventType type = outcome.failed() ? JobEventType.FAILED : JobEventType.COMPLETED;
        settle(part, JobEvents.ofPart(part, type, Instant.now(), code,
                outcome.failed() || outcome.reason().isPresent() ? outcome.describe() : null));
        listeners.forEach(l -> l.partEnded(part));
    }

    /**
     * Reports a part's terminal event so that it survives a crash: the outcome goes to the ledger
     * first, the part counts as settled only once Kafka has the event, and a restarted sink sends
     * an outcome without that acknowledgement again (same event id).
     */
    void settle(final JobPart part, final JobEvent event) {
        ledger.outcome(part, JobEvents.toOutcome(event));
        publisher.publish(event, () -> ledger.ended(part, event.getType().name()));
    }

    void stopped(final JobPart part) {
        listeners.forEach(l -> l.partEnded(part));
    }

    private void busyChanged() {
        if (listeners.isEmpty()) {
            return;
        }
        final Set<String> busy = Set.copyOf(busyGpus());
        listeners.forEach(l -> l.busyGpusChanged(busy));
    }
}
