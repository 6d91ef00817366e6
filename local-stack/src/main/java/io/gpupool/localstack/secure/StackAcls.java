package io.gpupool.localstack.secure;

import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What each principal of the secured stack may do, as ACLs for the StandardAuthorizer (everything else is
 * denied; the admin is a super user). Each part may write only its own topics:
 * <pre>
 *   scheduler  reads every gpupool topic; writes journal (+ snapshots), decisions, node-commands, dlq;
 *              owns its application id's internal topics, group and transactional ids
 *   sink       reads node-commands; writes job-events, dlq; its groups gpupool-sink*
 *   collector  writes inventory, telemetry.gpu, telemetry.link
 *   submitter  writes jobs; reads decisions (submit --wait) and the inventory (submit's check)
 *   auditor    reads every gpupool topic and the groups' committed positions, writes nothing; joins only
 *              its own readers' groups gpupool-auditor* (a kafkajs consumer always joins one)
 *   tenant-T   writes its own job topic gpupool.jobs.T; reads decisions and the inventory ({@link TenantAccess})
 * </pre>
 * The scheduler and the auditor read every tenant's job topic (prefix {@code gpupool.jobs.}).
 * Creating them again is harmless, so every secured start applies them (a renamed topic gets its ACLs).
 */
public final class StackAcls {
    /** Prefix of the consumer groups an auditor may describe (their committed positions), never join. */
    public static final String TOOL_GROUPS = "gpupool";
    /** Prefix of the groups an auditor's own readers may join; no part of gpupool uses it, so it joins none of theirs. */
    public static final String AUDITOR_GROUPS = "gpupool-auditor";
    /** Prefix of the sinks' consumer groups (gpupool-sink, gpupool-sink-NODE). */
    public static final String SINK_GROUPS = "gpupool-sink";

    private StackAcls() {
    }

    /** Every ACL of the stack, for these topic names and this scheduler application id. */
    public static List<AclBinding> bindings(final TopicCatalog topics, final String schedulerApplicationId) {
        final List<AclBinding> acls = new ArrayList<>();
        for (final Topic t : Topic.values()) {
            allow(acls, StackPrincipal.SCHEDULER, ResourceType.TOPIC, topics.name(t), PatternType.LITERAL, AclOperation.READ,
                    AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);
            allow(acls, StackPrincipal.AUDITOR, ResourceType.TOPIC, topics.name(t), PatternType.LITERAL, AclOperation.READ,
                    AclOperation.DESCRIBE);
        }
        // every tenant's job topic (<jobs>.<tenant>), those added later included: reading takes no tenant's place
        for (final StackPrincipal reader : List.of(StackPrincipal.SCHEDULER, StackPrincipal.AUDITOR)) {
            allow(acls, reader, ResourceType.TOPIC, topics.name(Topic.JOBS) + ".", PatternType.PREFIXED, AclOperation.READ,
                    AclOperation.DESCRIBE);
        }
        // the journal and its snapshots topic (<journal>.snapshots, which the scheduler creates)
        allow(acls, StackPrincipal.SCHEDULER, ResourceType.TOPIC, topics.name(Topic.JOURNAL), PatternType.PREFIXED, AclOperation.ALL);
        allow(acls, StackPrincipal.AUDITOR, ResourceType.TOPIC, topics.name(Topic.JOURNAL), PatternType.PREFIXED,
                AclOperation.READ, AclOperation.DESCRIBE);
        for (final Topic t : List.of(Topic.DECISIONS, Topic.NODE_COMMANDS, Topic.DLQ)) {
            allow(acls, StackPrincipal.SCHEDULER, ResourceType.TOPIC, topics.name(t), PatternType.LITERAL, AclOperation.WRITE);
        }
        for (final ResourceType type : List.of(ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)) {
            allow(acls, StackPrincipal.SCHEDULER, type, schedulerApplicationId, PatternType.PREFIXED, AclOperation.ALL);
        }
        allow(acls, StackPrincipal.SCHEDULER, ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                AclOperation.DESCRIBE, AclOperation.IDEMPOTENT_WRITE);

        allow(acls, StackPrincipal.SINK, ResourceType.TOPIC, topics.name(Topic.NODE_COMMANDS), PatternType.LITERAL,
                AclOperation.READ, AclOperation.DESCRIBE);
        for (final Topic t : List.of(Topic.JOB_EVENTS, Topic.DLQ)) {
            allow(acls, StackPrincipal.SINK, ResourceType.TOPIC, topics.name(t), PatternType.LITERAL, AclOperation.WRITE,
                    AclOperation.DESCRIBE);
        }
        allow(acls, StackPrincipal.SINK, ResourceType.GROUP, SINK_GROUPS, PatternType.PREFIXED, AclOperation.READ,
                AclOperation.DESCRIBE);

        for (final Topic t : List.of(Topic.INVENTORY, Topic.TELEMETRY_GPU, Topic.TELEMETRY_LINK)) {
            allow(acls, StackPrincipal.COLLECTOR, ResourceType.TOPIC, topics.name(t), PatternType.LITERAL, AclOperation.WRITE,
                    AclOperation.DESCRIBE);
        }

        allow(acls, StackPrincipal.SUBMITTER, ResourceType.TOPIC, topics.name(Topic.JOBS), PatternType.LITERAL,
                AclOperation.WRITE, AclOperation.DESCRIBE);
        // decisions for submit --wait, the inventory for submit's check that the pool can ever hold the job
        for (final Topic t : List.of(Topic.DECISIONS, Topic.INVENTORY)) {
            allow(acls, StackPrincipal.SUBMITTER, ResourceType.TOPIC, topics.name(t), PatternType.LITERAL,
                    AclOperation.READ, AclOperation.DESCRIBE);
        }
        // the audit reads the scheduler group's committed positions (OffsetFetch); DESCRIBE cannot commit or join
        allow(acls, StackPrincipal.AUDITOR, ResourceType.GROUP, TOOL_GROUPS, PatternType.PREFIXED, AclOperation.DESCRIBE);
        allow(acls, StackPrincipal.AUDITOR, ResourceType.GROUP, AUDITOR_GROUPS, PatternType.PREFIXED, AclOperation.READ);
        return acls;
    }

    /** Creates the ACLs (as the admin); existing ones stay as they are. */
    public static void apply(final Admin admin, final TopicCatalog topics, final String schedulerApplicationId)
            throws InterruptedException {
        try {
            admin.createAcls(bindings(topics, schedulerApplicationId)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new SecuritySetupException("cannot create the stack's ACLs: " + e.getMessage(), e);
        }
    }

    private static void allow(final List<AclBinding> acls, final StackPrincipal who, final ResourceType type, final String name,
            final PatternType pattern, final AclOperation... operations) {
        for (final AclOperation op : operations) {
            acls.add(new AclBinding(new ResourcePattern(type, name, pattern),
                    new AccessControlEntry(who.kafkaPrincipal(), "*", op, AclPermissionType.ALLOW)));
        }
    }
}
