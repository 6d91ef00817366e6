package io.gpupool.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TenantJobTopicsTest {
    @Test
    void aTenantsTopicIsTheJobsTopicWithTheTenantAfterADot() {
        assertThat(TenantJobTopics.topic("gpupool.jobs", "team-a")).isEqualTo("gpupool.jobs.team-a");
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.jobs.team-a")).isEqualTo("team-a");
        assertThat(TenantJobTopics.tenantOf("prod.gpupool.jobs", "prod.gpupool.jobs.t_1")).isEqualTo("t_1");
    }

    @Test
    void noOtherTopicIsATenants() {
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.jobs")).isNull();
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.job-events")).isNull();
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.jobs.")).isNull();
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.jobs.a.b")).isNull();
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.jobs.Team")).isNull();
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "gpupool.jobsx")).isNull();
        assertThat(TenantJobTopics.tenantOf("gpupool.jobs", "xgpupool.jobs.a")).isNull();
    }

    @Test
    void thePatternMatchesTenantTopicsOnly() {
        final var p = TenantJobTopics.pattern("gpupool.jobs");
        assertThat(p.matcher("gpupool.jobs.team-a").matches()).isTrue();
        assertThat(p.matcher("gpupool.jobs").matches()).isFalse();
        assertThat(p.matcher("gpupool.job-events").matches()).isFalse();
        assertThat(p.matcher("gpupool.jobs.a.b").matches()).isFalse();
        assertThat(p.matcher("gpupoolXjobs.a").matches()).isFalse(); // the dots are literal
    }

    @Test
    void aNameThatCannotBeATopicIsRefusedWithTheRule() {
        assertThatThrownBy(() -> TenantJobTopics.topic("gpupool.jobs", "Team.A"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lower-case letters, digits");
        assertThat(TenantJobTopics.invalidTenant("-a")).isNotNull();
        assertThat(TenantJobTopics.invalidTenant("a".repeat(64))).isNotNull();
        assertThat(TenantJobTopics.invalidTenant("a".repeat(63))).isNull();
    }

    @Test
    void aTenantsTopicIsCreatedAsTheJobsTopicIs() {
        final TopicSpec spec = TenantJobTopics.spec(TopicCatalog.defaults(), "team-a");
        assertThat(spec.name()).isEqualTo("gpupool.jobs.team-a");
        assertThat(spec.topic()).isEqualTo(Topic.JOBS);
        assertThat(spec.configs()).isEqualTo(TopicCatalog.defaults().spec(Topic.JOBS).configs());
    }
}
