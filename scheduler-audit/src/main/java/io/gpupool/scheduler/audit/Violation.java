package io.gpupool.scheduler.audit;

/** An invariant that did not hold at one moment of the history, with the journal entry where it broke. */
public record Violation(String invariant, String where, String detail) {

    public String describe() {
        return "violation " + invariant + " at " + where + ": " + detail;
    }
}
