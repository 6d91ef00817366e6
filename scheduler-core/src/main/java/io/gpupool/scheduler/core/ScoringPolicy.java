package io.gpupool.scheduler.core;

import java.util.Locale;

/** How the engine ranks the placements that pass the filters. */
public enum ScoringPolicy {
    /** The first fitting node(s) in pool order. */
    FIRST_FIT("first-fit"),
    /**
     * The node(s) left with the least free capacity after placement: by GPUs left, or (setting
     * best-fit-cpu-weight) by weighted CPU and GPU left as the FGD paper's BestFit baseline.
     */
    BEST_FIT("best-fit"),
    /**
     * Fragmentation gradient descent (Weng et al., USENIX ATC'23): the placement that increases the
     * expected fragmentation of the remaining GPU capacity least, weighted by the recent job-size mix.
     */
    FGD("fgd"),
    /** A node drawn at random among those that fit (seeded: setting seed); the FGD paper's Random baseline. */
    RANDOM("random");

    private final String policyName;

    ScoringPolicy(final String policyName) {
        this.policyName = policyName;
    }

    public String policyName() {
        return policyName;
    }

    public static ScoringPolicy byName(final String name) {
        final String wanted = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (final ScoringPolicy p : values()) {
            if (p.policyName.equals(wanted)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown scoring policy '" + name
                + "'; use one of first-fit, best-fit, fgd, random");
    }
}
