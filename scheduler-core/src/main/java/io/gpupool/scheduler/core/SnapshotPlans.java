package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.List;

/**
 * Snapshot sections about reservations: the reservation the last queue pass made (or none), and the
 * standing reservation plans kept between passes (version 3; older snapshots restore with none).
 */
final class SnapshotPlans {
    private SnapshotPlans() {
    }

    static void writeReservation(final SnapshotOut out, final PoolState st) throws IOException {
        out.writeBoolean(st.reservation != null);
        if (st.reservation != null) {
            out.str(st.reservation.jobId());
            out.writeLong(st.reservation.startAtMs());
            out.names(st.reservation.nodes());
        }
    }

    static void readReservation(final SnapshotIn in, final PoolState st) throws IOException {
        if (in.readBoolean()) {
            st.reservation = new Reservation(in.str(), in.readLong(), in.names());
        }
    }

    static void writeStanding(final SnapshotOut out, final PoolState st) throws IOException {
        final List<StandingPlans.Plan> plans = st.plans.plans();
        out.writeInt(plans.size());
        for (final StandingPlans.Plan p : plans) {
            SnapshotJobs.spec(out, p.exemplar());
            out.writeLong(p.startAtMs());
            out.names(p.nodes());
        }
    }

    static void readStanding(final SnapshotIn in, final PoolState st) throws IOException {
        final int plans = in.readInt();
        for (int i = 0; i < plans; i++) {
            st.plans.put(SnapshotJobs.readSpec(in), in.readLong(), in.names());
        }
    }
}
