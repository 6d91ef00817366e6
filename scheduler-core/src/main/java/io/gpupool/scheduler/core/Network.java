package io.gpupool.scheduler.core;

/** The fabric a multi-node job needs between its nodes. */
public enum Network {
    INFINIBAND,
    ROCE,
    ANY;

    /** True when a node offering {@code offered} satisfies a job asking for this network. */
    public boolean satisfiedBy(final boolean infiniband, final boolean roce) {
        return switch (this) {
            case INFINIBAND -> infiniband;
            case ROCE -> roce;
            case ANY -> true;
        };
    }
}
