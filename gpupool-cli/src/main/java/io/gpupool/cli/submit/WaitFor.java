package io.gpupool.cli.submit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.config.ExitCodes;
import java.util.Locale;

/** What {@code submit --wait=WHAT} waits for: the first decision, the job's start, or its end. */
public enum WaitFor {
    /** The scheduler's first answer: placed, queued or rejected. */
    DECIDED,
    /** Placed on its nodes (or an end before it ever started). */
    STARTED,
    /** The job's end: completed, failed, cancelled, rejected or evicted for good. */
    FINISHED;

    static WaitFor parse(final String text) {
        for (final WaitFor w : values()) {
            if (w.name().equalsIgnoreCase(text.trim())) {
                return w;
            }
        }
        throw new IllegalArgumentException("--wait=" + text + " is unknown; use --wait (the first decision), --wait=started "
                + "or --wait=finished");
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether {@code d} ends this wait. An EVICTED decision is an end only when no QUEUED follows it (the
     * job was not requeued): the watch decides that, see {@link DecisionWatch}.
     */
    boolean endsAt(final PlacementDecision d) {
        final DecisionOutcome o = d.getOutcome();
        return switch (this) {
            case DECIDED -> true;
            case STARTED -> o == DecisionOutcome.PLACED || ended(o);
            case FINISHED -> ended(o);
        };
    }

    private static boolean ended(final DecisionOutcome o) {
        return o == DecisionOutcome.REJECTED || o == DecisionOutcome.CANCELLED || o == DecisionOutcome.RELEASED
                || o == DecisionOutcome.EVICTED;
    }

    /** The exit code for the decision that ended the wait. */
    ExitCodes exitCode(final PlacementDecision d) {
        final DecisionOutcome o = d.getOutcome();
        if (o == DecisionOutcome.REJECTED) {
            return ExitCodes.REFUSED;
        }
        return switch (this) {
            case DECIDED -> ExitCodes.OK;
            case STARTED -> o == DecisionOutcome.PLACED ? ExitCodes.OK : ExitCodes.JOB_FAILED;
            case FINISHED -> o == DecisionOutcome.RELEASED && "COMPLETED".equals(d.getReasonCode())
                    ? ExitCodes.OK : ExitCodes.JOB_FAILED;
        };
    }
}
