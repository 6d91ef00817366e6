package io.gpupool.sink.apply;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Remembers what an applier reported, per part, and lets a test wait for a part's end. */
final class RecordingObserver implements PartObserver {
    final Map<String, Long> pids = new ConcurrentHashMap<>();
    final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> ends = new ConcurrentHashMap<>();

    @Override
    public void started(final JobPart part, final long pid) {
        pids.put(part.commandId(), pid);
    }

    @Override
    public void ended(final JobPart part, final Outcome outcome) {
        if (outcomes.putIfAbsent(part.commandId(), outcome) != null) {
            throw new AssertionError("ended twice: " + part.key());
        }
        latch(part).countDown();
    }

    Outcome awaitEnd(final JobPart part, final Duration timeout) throws InterruptedException {
        if (!latch(part).await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(part.key() + " did not end within " + timeout);
        }
        return outcomes.get(part.commandId());
    }

    boolean ended(final JobPart part) {
        return outcomes.containsKey(part.commandId());
    }

    private CountDownLatch latch(final JobPart part) {
        return ends.computeIfAbsent(part.commandId(), k -> new CountDownLatch(1));
    }
}
