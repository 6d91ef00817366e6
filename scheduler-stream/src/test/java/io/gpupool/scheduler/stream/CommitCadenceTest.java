package io.gpupool.scheduler.stream;

import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommitCadenceTest {
    private static final long START = 1_700_000_000_000L;

    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    /** What the thread has spent committing so far, in ms (the cadence reads ns). */
    private double committingMs;
    /** Whether the placer is behind, as the cadence reads it. */
    private boolean behind;

    private CapturedPunctuator start(final CommitCadence cadence) {
        // no system time set: as in other tests' mock contexts, init must not need one
        cadence.init(context);
        assertThat(context.scheduledPunctuators()).hasSize(1);
        return context.scheduledPunctuators().get(0);
    }

    private CommitCadence withCommitTimes() {
        return new CommitCadence(() -> committingMs * 1e6, () -> behind);
    }

    private boolean asksAt(final CapturedPunctuator check, final long msAfterStart) {
        context.resetCommit();
        check.getPunctuator().punctuate(START + msAfterStart);
        return context.committed();
    }

    @Test
    void looksEveryTenMillisecondsOnTheWallClock() {
        final CapturedPunctuator check = start(withCommitTimes());
        assertThat(check.getType()).isEqualTo(PunctuationType.WALL_CLOCK_TIME);
        assertThat(check.getInterval()).isEqualTo(CommitCadence.CHECK_EVERY);
        assertThat(CommitCadence.CHECK_EVERY.toMillis()).isEqualTo(10);
    }

    @Test
    void cheapCommitsAreAskedForAtEveryCheck() {
        final CommitCadence cadence = withCommitTimes();
        final CapturedPunctuator check = start(cadence);
        for (int i = 1; i <= 5; i++) {
            cadence.processed();
            assertThat(asksAt(check, 10L * i)).as("check %d", i).isTrue();
            committingMs += 2; // the commit it asked for took 2 ms
        }
    }

    @Test
    void aSlowCommitSpacesTheNextByFourTimesItsLength() {
        final CommitCadence cadence = withCommitTimes();
        final CapturedPunctuator check = start(cadence);
        cadence.processed();
        assertThat(asksAt(check, 10)).isTrue();
        committingMs += 20; // a busy broker: that commit took 20 ms
        cadence.processed();
        assertThat(asksAt(check, 20)).isFalse();
        assertThat(asksAt(check, 60)).isFalse();
        assertThat(asksAt(check, 89)).as("79 ms after the last ask, under 4 x 20").isFalse();
        assertThat(asksAt(check, 90)).as("80 ms after").isTrue();
    }

    @Test
    void nothingProcessedAsksForNothing() {
        final CommitCadence cadence = withCommitTimes();
        final CapturedPunctuator check = start(cadence);
        assertThat(asksAt(check, 10)).isFalse();
        cadence.processed();
        assertThat(asksAt(check, 20)).isTrue();
        assertThat(asksAt(check, 30)).as("nothing new since").isFalse();
    }

    @Test
    void withoutTheProducersTimesEveryCheckAsks() {
        // times not bound to a Streams client (as in a test driver): the cadence falls back to a fixed 10 ms
        final CommitCadence cadence = new CommitCadence(new ProducerCommitTimes(), () -> false);
        final CapturedPunctuator check = start(cadence);
        cadence.processed();
        assertThat(asksAt(check, 10)).isTrue();
        cadence.processed();
        assertThat(asksAt(check, 20)).isTrue();
    }

    @Test
    void nothingIsAskedWhileThePlacerIsBehindAndCommitsAreAskedForAgainAfter() {
        final CommitCadence cadence = withCommitTimes();
        final CapturedPunctuator check = start(cadence);
        behind = true;
        cadence.processed();
        assertThat(asksAt(check, 10)).as("behind: commit.interval.ms commits").isFalse();
        assertThat(asksAt(check, 500)).isFalse();
        behind = false;
        assertThat(asksAt(check, 510)).as("caught up, with records waiting for a commit").isTrue();
    }

    @Test
    void aBacklogIsBehindOverItsThresholdOnAnyPartitionWhileItsMeasurementIsFresh() {
        final long[] now = {0};
        final JournalBacklog backlog = new JournalBacklog(0, () -> now[0]);
        assertThat(backlog.behind()).as("never measured").isFalse();
        backlog.measured(java.util.Map.of(0, 10L, 1, JournalBacklog.BEHIND_ENTRIES));
        assertThat(backlog.behind()).as("at the threshold").isFalse();
        backlog.measured(java.util.Map.of(0, 10L, 1, JournalBacklog.BEHIND_ENTRIES + 1));
        assertThat(backlog.behind()).as("a limit of 0 sheds nothing, but the backlog is still measured").isTrue();
        now[0] += JournalBacklog.STALE_MS + 1;
        assertThat(backlog.behind()).as("a stale measurement says nothing").isFalse();
    }
}
