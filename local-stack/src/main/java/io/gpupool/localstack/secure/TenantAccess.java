package io.gpupool.localstack.secure;

import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The tenants of the secured stack: a SCRAM user {@code tenant-<name>} each, which may write its own job topic
 * ({@code <jobs>.<name>}) and nothing else, and read decisions (submit --wait) and the inventory (submit's check). The topic ACL is LITERAL: a
 * PREFIXED one on {@code gpupool.jobs.a} would let tenant "a" write {@code gpupool.jobs.ab} too. The scheduler
 * reads every tenant topic ({@link StackAcls}) and takes the tenant from the topic, so a tenant's credentials
 * cannot submit or cancel for another. Users are added at every start through the admin API (tenants are added
 * after the cluster was formatted); doing it again changes nothing.
 */
public final class TenantAccess {
    private static final int SCRAM_ITERATIONS = 4096;

    private TenantAccess() {
    }

    /** The ACLs of every tenant of {@code security}. */
    public static List<AclBinding> bindings(final TopicCatalog topics, final StackSecurity security) {
        final List<AclBinding> acls = new ArrayList<>();
        for (final String tenant : security.tenants()) {
            final String principal = "User:" + StackSecurity.tenantUser(tenant);
            allow(acls, principal, TenantJobTopics.topic(topics.name(Topic.JOBS), tenant), AclOperation.WRITE,
                    AclOperation.DESCRIBE);
            for (final Topic t : List.of(Topic.DECISIONS, Topic.INVENTORY)) { // as the submitter: --wait, submit's check
                allow(acls, principal, topics.name(t), AclOperation.READ, AclOperation.DESCRIBE);
            }
        }
        return acls;
    }

    /** Creates (or updates) every tenant's user and ACLs, as the admin. */
    public static void apply(final Admin admin, final TopicCatalog topics, final StackSecurity security)
            throws InterruptedException {
        if (security.tenants().isEmpty()) {
            return;
        }
        final List<UserScramCredentialAlteration> users = new ArrayList<>();
        for (final String tenant : security.tenants()) {
            users.add(new UserScramCredentialUpsertion(StackSecurity.tenantUser(tenant),
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), security.tenantPassword(tenant)));
        }
        try {
            admin.alterUserScramCredentials(users).all().get(60, TimeUnit.SECONDS);
            admin.createAcls(bindings(topics, security)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new SecuritySetupException("cannot create the tenants' users and ACLs: " + e.getMessage(), e);
        }
    }

    private static void allow(final List<AclBinding> acls, final String principal, final String topic,
                              final AclOperation... operations) {
        for (final AclOperation op : operations) {
            acls.add(new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
        }
    }
}
