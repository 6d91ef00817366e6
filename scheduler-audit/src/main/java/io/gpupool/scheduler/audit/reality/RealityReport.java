package io.gpupool.scheduler.audit.reality;

import java.io.PrintWriter;
import java.util.List;

/**
 * What the sinks' own reports say happened: how many GPUs running parts ever over-allocated, how many
 * parts ran that no allocation accounts for, how many commands were never applied; the first
 * {@value RealityAudit#KEPT} findings of each kind, and notes on what was read and judged.
 *
 * @param checked false when the sink history could not be read ({@code whyNot} says why, or is null
 *                when the audit was not asked to check it)
 */
public record RealityReport(boolean checked, String whyNot, long overallocatedGpus, long orphanParts,
                            long unappliedCommands, List<OverallocatedGpu> overallocated, List<OrphanPart> orphans,
                            List<UnappliedCommand> unapplied, List<String> notes) {
    public static final RealityReport NONE = notChecked(null);

    public RealityReport {
        overallocated = List.copyOf(overallocated);
        orphans = List.copyOf(orphans);
        unapplied = List.copyOf(unapplied);
        notes = List.copyOf(notes);
    }

    public static RealityReport notChecked(final String why) {
        return new RealityReport(false, why, 0, 0, 0, List.of(), List.of(), List.of(), List.of());
    }

    /** Nothing found (also when not checked: then there is nothing to find). */
    public boolean clean() {
        return overallocatedGpus == 0 && orphanParts == 0 && unappliedCommands == 0;
    }

    /** The notes and findings; the figures line is {@link #summary()}. */
    public void printFindings(final PrintWriter out) {
        if (!checked) {
            if (whyNot != null) {
                out.println("reality not checked: " + whyNot);
            }
            return;
        }
        notes.forEach(out::println);
        overallocated.forEach(f -> out.println(f.describe()));
        more(out, overallocatedGpus, overallocated.size(), "overallocated GPUs");
        orphans.forEach(f -> out.println(f.describe()));
        more(out, orphanParts, orphans.size(), "orphan parts");
        unapplied.forEach(f -> out.println(f.describe()));
        more(out, unappliedCommands, unapplied.size(), "unapplied commands");
    }

    private static void more(final PrintWriter out, final long count, final int shown, final String what) {
        if (count > shown) {
            out.printf("... and %d more %s%n", count - shown, what);
        }
    }

    /** The figures as one name=value line. */
    public String summary() {
        return "overallocated_gpus=" + overallocatedGpus + " orphan_parts=" + orphanParts + " unapplied_commands="
                + unappliedCommands;
    }
}
