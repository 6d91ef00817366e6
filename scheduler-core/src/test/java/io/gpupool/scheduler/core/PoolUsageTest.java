package io.gpupool.scheduler.core;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Who holds the pool: GPUs held per tenant against its quota, and idle allocations by job and node. */
class PoolUsageTest {

    @Test
    void heldAndIdleGpusPerTenantWithItsQuotaAndTheIdleAllocationsMostIdleFirst() {
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "busy-utilisation-pct", "50",
                "tenant.ml.guaranteed-gpus", "8", "tenant.ml.max-gpus", "12", "tenant.unused.guaranteed-gpus", "2")), 1, 2, 8);
        final Decision big = e.apply(submit(1, JobSpec.builder("big").tenant("ml").gang(1, 8).build())).decisions().get(0);
        final Decision small = e.apply(submit(2, JobSpec.builder("small").tenant("web").gang(1, 2).build())).decisions().get(0);
        final Decision share = e.apply(submit(3, JobSpec.builder("share").tenant("web").share(250, 1_000).build()))
                .decisions().get(0);
        assertEquals(List.of(DecisionKind.PLACED, DecisionKind.PLACED, DecisionKind.PLACED),
                List.of(big.kind(), small.kind(), share.kind()));
        // six of big's eight GPUs work; small's two and the share's GPU do not
        final PlacementPart bigPart = big.placement().get(0);
        for (int i = 0; i < 6; i++) {
            e.apply(new EngineInput.GpuUtilisationFact(4, bigPart.nodeId(), bigPart.gpus().get(i), 90));
        }
        e.apply(new EngineInput.GpuUtilisationFact(4, small.placement().get(0).nodeId(),
                small.placement().get(0).gpus().get(0), 49)); // under the threshold: idle

        final PoolUsage u = e.usage(10);
        assertEquals(List.of(new PoolUsage.TenantUsage("ml", 8, 2, 8, 12),
                new PoolUsage.TenantUsage("unused", 0, 0, 2, Integer.MAX_VALUE),
                new PoolUsage.TenantUsage("web", 2.25, 2.25, 0, Integer.MAX_VALUE)), u.tenants());
        assertEquals(List.of(
                new PoolUsage.IdleAllocation("ml", "big", bigPart.nodeId(), 2),
                new PoolUsage.IdleAllocation("web", "small", small.placement().get(0).nodeId(), 2),
                new PoolUsage.IdleAllocation("web", "share", share.placement().get(0).nodeId(), 0.25)), u.idle());
        assertEquals(4.25, u.idleTotal(), 1e-9);
        // the pool's own count agrees: allocated minus busy
        final ModelCapacity c = e.capacity().byModel().get("H100");
        assertEquals(6, c.busy());

        final PoolUsage top = e.usage(1);
        assertEquals(List.of(new PoolUsage.IdleAllocation("ml", "big", bigPart.nodeId(), 2)), top.idle());
        assertEquals(4.25, top.idleTotal(), 1e-9, "the total counts the rows left out too");
    }
}
