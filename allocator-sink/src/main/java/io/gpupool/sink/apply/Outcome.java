package io.gpupool.sink.apply;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * How a job's part ended, as the applier saw it: the exit code when a process ran and it is known,
 * a reason when something other than a plain exit ended it, and whether that counts as a failure.
 */
public record Outcome(OptionalInt exitCode, Optional<String> reason, boolean failed) {

    /** A process exited; non-zero is a failure. */
    public static Outcome exited(final int code) {
        return new Outcome(OptionalInt.of(code), Optional.empty(), code != 0);
    }

    /** A simulated part that ran its course. */
    public static Outcome finished() {
        return new Outcome(OptionalInt.of(0), Optional.empty(), false);
    }

    /** It ended normally as far as anyone can tell, but its exit code is unknown (a process adopted after a restart). */
    public static Outcome endedWithoutCode(final String reason) {
        return new Outcome(OptionalInt.empty(), Optional.of(reason), false);
    }

    /** It could not run or was lost (e.g. it ended while no sink watched it). */
    public static Outcome lost(final String reason) {
        return new Outcome(OptionalInt.empty(), Optional.of(reason), true);
    }

    /** It was stopped on request; the exit code when a process was signalled. */
    public static Outcome stopped(final OptionalInt exitCode, final String reason) {
        return new Outcome(exitCode, Optional.of(reason), false);
    }

    /** Exited with code 0. */
    public boolean success() {
        return !failed && exitCode.isPresent() && exitCode.getAsInt() == 0;
    }

    /** Words for a FAILED event's reason. */
    public String describe() {
        return reason.orElseGet(() -> exitCode.isPresent() ? "exit code " + exitCode.getAsInt() : "ended");
    }
}
