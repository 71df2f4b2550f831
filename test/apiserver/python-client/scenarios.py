"""Scenarios driven through the official Kubernetes Python client (Debian's python3-kubernetes).

Run by python-client.test.ts against a fresh embedded API server:
    /usr/bin/python3 scenarios.py <kubeconfig> [scenario ...]
Prints one JSON line per scenario: {"name", "status": "pass"|"fail"|"skip", "detail"}.
Every scenario uses its own namespace, so they are independent of each other's leftovers.
"""

import datetime
import json
import sys
import threading
import time
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

NODECONFIG = ("nodeherd.io", "v1alpha1", "nodeconfigs")


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def wait_for(what, probe, timeout=15.0, interval=0.05):
    deadline = time.time() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(interval)


def namespace(name):
    core = client.CoreV1Api()
    try:
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    except ApiException as e:
        if e.status != 409:
            raise
    return name


def raw_patch(path, content_type, body, response_type):
    """A PATCH with a content type the 22.6 generated methods cannot choose (merge, apply)."""
    api = client.ApiClient()
    return api.call_api(
        path, "PATCH",
        header_params={"Content-Type": content_type, "Accept": "application/json"},
        body=body, response_type=response_type, auth_settings=["BearerToken"],
        _return_http_data_only=True)


def collect(stream_factory, into, stop_when=None):
    """Runs a watch stream in a thread, appending (type, object) pairs until it ends or stop_when holds."""
    w = watch.Watch()

    def run():
        try:
            for event in stream_factory(w):
                into.append((event["type"], event["object"]))
                if stop_when is not None and stop_when(into):
                    w.stop()
        except Exception as e:  # noqa: BLE001 - reported through the list
            into.append(("EXCEPTION", repr(e)))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return w, thread


def name_of(obj):
    return obj["metadata"]["name"] if isinstance(obj, dict) else obj.metadata.name


# ----------------------------------------------------------------------------------------- scenarios


def list_watch_resource_version_and_timeout():
    ns = namespace("py-watch")
    core = client.CoreV1Api()
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="before")))
    listed = core.list_namespaced_config_map(ns)
    check([c.metadata.name for c in listed.items] == ["before"], "the list has the first ConfigMap")
    rv = listed.metadata.resource_version
    events = []
    started = time.time()
    _, thread = collect(
        lambda w: w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=3), events)
    time.sleep(0.3)
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="after")))
    thread.join(15)
    elapsed = time.time() - started
    check(not thread.is_alive(), "the watch ends by itself after timeoutSeconds")
    check(2.5 <= elapsed < 10, "the watch lasted about timeoutSeconds=3, not %.1fs" % elapsed)
    seen = [(t, name_of(o)) for t, o in events]
    check(seen == [("ADDED", "after")], "from the list's resourceVersion only the new ConfigMap: %r" % seen)
    check(isinstance(events[0][1], client.V1ConfigMap), "events are decoded into V1ConfigMap")
    return "watch=True from rv %s saw %r and ended after %.1fs" % (rv, seen, elapsed)


def informer_list_then_watch():
    ns = namespace("py-informer")
    core = client.CoreV1Api()
    for i in range(3):
        core.create_namespaced_config_map(
            ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm-%d" % i, labels={"app": "informed"})))
    listed = core.list_namespaced_config_map(ns, label_selector="app=informed", limit=2)
    items = list(listed.items)
    check(listed.metadata._continue, "a limit of 2 over 3 objects gives a continue token")
    rest = core.list_namespaced_config_map(ns, label_selector="app=informed", limit=2,
                                           _continue=listed.metadata._continue)
    items += rest.items
    check(sorted(c.metadata.name for c in items) == ["cm-0", "cm-1", "cm-2"], "paged list is complete")
    cache = {c.metadata.name: c for c in items}
    events = []
    w, thread = collect(lambda w: w.stream(
        core.list_namespaced_config_map, ns, label_selector="app=informed",
        resource_version=listed.metadata.resource_version, allow_watch_bookmarks=True, timeout_seconds=20),
        events, stop_when=lambda evs: any(t == "DELETED" and name_of(o) == "cm-1" for t, o in evs))
    core.patch_namespaced_config_map("cm-0", ns, {"data": {"k": "v"}})
    core.delete_namespaced_config_map("cm-1", ns)
    core.create_namespaced_config_map(
        ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm-3", labels={"app": "informed"})))
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="unlabelled")))
    thread.join(20)
    w.stop()
    for kind, obj in events:
        if kind == "EXCEPTION":
            raise AssertionError(obj)
        if kind in ("ADDED", "MODIFIED"):
            cache[name_of(obj)] = obj
        elif kind == "DELETED":
            cache.pop(name_of(obj), None)
    # cm-3 may arrive after the stop condition; what matters is the order and content up to the delete.
    kinds = [(t, name_of(o)) for t, o in events if t != "BOOKMARK"]
    check(("MODIFIED", "cm-0") in kinds and ("DELETED", "cm-1") in kinds, "saw the update and delete: %r" % kinds)
    check(kinds.index(("MODIFIED", "cm-0")) < kinds.index(("DELETED", "cm-1")), "in order: %r" % kinds)
    check("unlabelled" not in [n for _, n in kinds], "the label selector filters the watch")
    check(cache["cm-0"].data == {"k": "v"} and "cm-1" not in cache, "the cache follows the cluster")
    return "list (paged) then watch: %r" % kinds


def watch_custom_resources():
    ext = client.ApiextensionsV1Api()
    custom = client.CustomObjectsApi()
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "properties": {
                    "size": {"type": "integer"}}}}}}}],
        },
    }
    ext.create_custom_resource_definition(crd)
    wait_for("the Widget CRD to be Established", lambda: any(
        c.type == "Established" and c.status == "True"
        for c in (ext.read_custom_resource_definition("widgets.example.com").status.conditions or [])))
    ns = namespace("py-custom")
    listed = wait_for("widgets to be served", lambda: _try(
        lambda: custom.list_namespaced_custom_object("example.com", "v1", ns, "widgets")))
    events = []
    w, thread = collect(lambda w: w.stream(
        custom.list_namespaced_custom_object, "example.com", "v1", ns, "widgets",
        resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=20),
        events, stop_when=lambda evs: any(t == "DELETED" for t, _ in evs))
    custom.create_namespaced_custom_object("example.com", "v1", ns, "widgets", {
        "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}})
    raw_patch("/apis/example.com/v1/namespaces/%s/widgets/w" % ns, "application/merge-patch+json",
              {"spec": {"size": 2}}, "object")
    custom.delete_namespaced_custom_object("example.com", "v1", ns, "widgets", "w")
    thread.join(20)
    w.stop()
    seen = [(t, o["metadata"]["name"], o.get("spec", {}).get("size")) for t, o in events if t != "EXCEPTION"]
    check(seen == [("ADDED", "w", 1), ("MODIFIED", "w", 2), ("DELETED", "w", 2)], "widget events: %r" % events)

    # nodeherd's own NodeConfig (cluster-scoped), watched the same way.
    group, version, plural = NODECONFIG
    listed = custom.list_cluster_custom_object(group, version, plural)
    events = []
    w, thread = collect(lambda w: w.stream(
        custom.list_cluster_custom_object, group, version, plural,
        resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=20),
        events, stop_when=lambda evs: any(t == "ADDED" for t, _ in evs))
    custom.create_cluster_custom_object(group, version, plural, {
        "apiVersion": "nodeherd.io/v1alpha1", "kind": "NodeConfig", "metadata": {"name": "py-config"},
        "spec": {"files": [{"path": "/etc/motd", "mode": 420, "content": {"inline": {"data": "hello"}}}]}})
    thread.join(20)
    w.stop()
    check([(t, o["metadata"]["name"]) for t, o in events] == [("ADDED", "py-config")],
          "NodeConfig watch: %r" % events)
    return "Widget ADDED/MODIFIED/DELETED and NodeConfig ADDED seen through CustomObjectsApi watches"


def _try(fn):
    try:
        return fn()
    except ApiException:
        return None


def every_patch_type():
    ns = namespace("py-patch")
    core = client.CoreV1Api()
    core.create_namespaced_config_map(ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="p", labels={"a": "1"}), data={"x": "1", "y": "2"}))
    # A list body: the client sends application/json-patch+json.
    cm = core.patch_namespaced_config_map("p", ns, [
        {"op": "test", "path": "/data/x", "value": "1"},
        {"op": "replace", "path": "/data/x", "value": "10"},
        {"op": "remove", "path": "/data/y"}])
    check(cm.data == {"x": "10"}, "JSON patch: %r" % cm.data)
    # A dict body: the client sends application/strategic-merge-patch+json.
    cm = core.patch_namespaced_config_map("p", ns, {"metadata": {"labels": {"b": "2"}}, "data": {"z": "3"}})
    check(cm.metadata.labels == {"a": "1", "b": "2"} and cm.data == {"x": "10", "z": "3"}, "strategic merge")
    pod = core.create_namespaced_pod(ns, client.V1Pod(
        metadata=client.V1ObjectMeta(name="pod"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="a", image="busybox"),
                                          client.V1Container(name="b", image="busybox")])))
    pod = core.patch_namespaced_pod("pod", ns, {"spec": {"containers": [{"name": "b", "image": "alpine"}]}})
    check([(c.name, c.image) for c in pod.spec.containers] == [("a", "busybox"), ("b", "alpine")],
          "strategic merge merges containers by name")
    cm = raw_patch("/api/v1/namespaces/%s/configmaps/p" % ns, "application/merge-patch+json",
                   {"data": {"x": None, "w": "4"}}, "V1ConfigMap")
    check(cm.data == {"z": "3", "w": "4"}, "merge patch: %r" % cm.data)
    try:
        core.patch_namespaced_config_map("p", ns, [{"op": "test", "path": "/data/z", "value": "nope"}])
        raise AssertionError("a failing JSON patch test op must be refused")
    except ApiException as e:
        check(e.status == 422, "failed test op: %s %s" % (e.status, e.body))
    cm = raw_patch("/api/v1/namespaces/%s/configmaps/p?fieldManager=py" % ns, "application/apply-patch+yaml",
                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  applied: 'yes'\n",
                   "V1ConfigMap")
    check(cm.data.get("applied") == "yes", "apply patch: %r" % cm.data)
    return "json, strategic merge, merge and apply patches"


def delete_options():
    ns = namespace("py-delete")
    core = client.CoreV1Api()
    cm = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="plain")))
    status = core.delete_namespaced_config_map("plain", ns, grace_period_seconds=0)
    check(isinstance(status, client.V1Status) and status.status == "Success", "ConfigMap delete is a Status")
    check(status.details.name == "plain" and status.details.kind == "configmaps"
          and status.details.uid == cm.metadata.uid, "Status details: %r" % status.details)

    cm = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="guarded")))
    for pre, what in ((client.V1Preconditions(uid="00000000-0000-0000-0000-000000000000"), "UID"),
                      (client.V1Preconditions(resource_version="1"), "ResourceVersion")):
        try:
            core.delete_namespaced_config_map("guarded", ns, body=client.V1DeleteOptions(preconditions=pre))
            raise AssertionError("a wrong %s precondition must be refused" % what)
        except ApiException as e:
            check(e.status == 409 and ("%s in precondition" % what) in e.body, "%s precondition: %s" % (what, e.body))
    core.delete_namespaced_config_map("guarded", ns, body=client.V1DeleteOptions(
        preconditions=client.V1Preconditions(uid=cm.metadata.uid, resource_version=cm.metadata.resource_version)))

    owner = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="owner")))
    ref = client.V1OwnerReference(api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid,
                                  block_owner_deletion=True)
    core.create_namespaced_config_map(ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="dependent", owner_references=[ref], finalizers=["example.com/hold"])))
    # Not gone at once, so kube answers the ConfigMap itself, which the client's V1Status typing cannot hold.
    answer = json.loads(core.delete_namespaced_config_map(
        "owner", ns, propagation_policy="Foreground", _preload_content=False).data)
    check(answer["kind"] == "ConfigMap" and answer["metadata"].get("deletionTimestamp")
          and "foregroundDeletion" in answer["metadata"].get("finalizers", []),
          "foreground: the owner waits with foregroundDeletion: %r" % answer)
    time.sleep(0.5)
    check(core.read_namespaced_config_map("owner", ns).metadata.deletion_timestamp is not None,
          "the owner stays while its dependent is held")
    core.patch_namespaced_config_map("dependent", ns, {"metadata": {"finalizers": None}})
    wait_for("the owner to go after its dependent", lambda: _gone(lambda: core.read_namespaced_config_map("owner", ns)))

    owner = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="owner2")))
    ref.name, ref.uid = "owner2", owner.metadata.uid
    core.create_namespaced_config_map(ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="orphan", owner_references=[ref])))
    core.delete_namespaced_config_map("owner2", ns, propagation_policy="Orphan")
    wait_for("the owner to go", lambda: _gone(lambda: core.read_namespaced_config_map("owner2", ns)))
    wait_for("the orphan to lose its owner reference",
             lambda: not core.read_namespaced_config_map("orphan", ns).metadata.owner_references)

    pod = core.create_namespaced_pod(ns, client.V1Pod(
        metadata=client.V1ObjectMeta(name="pod"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")])))
    deleted = core.delete_namespaced_pod("pod", ns, grace_period_seconds=0)
    check(isinstance(deleted, client.V1Pod) and deleted.metadata.uid == pod.metadata.uid,
          "a Pod delete answers the Pod (ReturnDeletedObject)")
    return "Status bodies, UID/ResourceVersion preconditions, Foreground, Orphan, gracePeriodSeconds"


def _gone(read):
    try:
        read()
        return False
    except ApiException as e:
        return e.status == 404


def events_of_both_apis():
    ns = namespace("py-events")
    core = client.CoreV1Api()
    events = client.EventsV1Api()
    now = datetime.datetime.now(datetime.timezone.utc)
    micro = now.replace(microsecond=now.microsecond or 1)
    core.create_namespaced_event(ns, client.CoreV1Event(
        metadata=client.V1ObjectMeta(name="from-core"),
        involved_object=client.V1ObjectReference(kind="Node", name="node-a", api_version="v1"),
        reason="Rebooted", message="node rebooted", type="Warning", count=2,
        first_timestamp=now, last_timestamp=now, event_time=micro,
        source=client.V1EventSource(component="py-agent"),
        reporting_component="py-agent", reporting_instance="py-agent-1"))
    seen = events.read_namespaced_event("from-core", ns)
    check(seen.note == "node rebooted" and seen.regarding.name == "node-a" and seen.deprecated_count == 2
          and seen.reporting_controller == "py-agent" and seen.deprecated_source.component == "py-agent",
          "the core Event through events.k8s.io/v1: %r" % seen)

    events.create_namespaced_event(ns, client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="from-v1"), event_time=micro,
        reporting_controller="example.com/py", reporting_instance="py-1", action="Rolled", reason="RolledOut",
        type="Normal", note="rolled out", regarding=client.V1ObjectReference(kind="Node", name="node-b"),
        series=client.EventsV1EventSeries(count=2, last_observed_time=micro)))
    listed = core.list_namespaced_event(ns, field_selector="involvedObject.name=node-b")
    check([e.metadata.name for e in listed.items] == ["from-v1"], "field selector on the core API")
    e = listed.items[0]
    check(e.message == "rolled out" and e.reporting_component == "example.com/py" and e.action == "Rolled"
          and e.series.count == 2, "the events.k8s.io Event through core/v1: %r" % e)
    check(e.event_time == micro.replace(microsecond=micro.microsecond), "MicroTime keeps microseconds")

    both = events.list_namespaced_event(ns)
    check(sorted(x.metadata.name for x in both.items) == ["from-core", "from-v1"], "one store, one list")
    watched = []
    w, thread = collect(lambda w: w.stream(events.list_namespaced_event, ns,
                                           resource_version=both.metadata.resource_version, timeout_seconds=20),
                        watched, stop_when=lambda evs: len(evs) >= 1)
    core.create_namespaced_event(ns, client.CoreV1Event(
        metadata=client.V1ObjectMeta(name="watched"), event_time=micro,
        involved_object=client.V1ObjectReference(kind="Node", name="node-c"), message="watched"))
    thread.join(20)
    w.stop()
    check(len(watched) == 1 and watched[0][0] == "ADDED" and isinstance(watched[0][1], client.EventsV1Event)
          and watched[0][1].note == "watched", "the events.k8s.io watch sees a core create: %r" % watched)
    return "CoreV1Api and EventsV1Api read, list, select and watch each other's Events"


def leader_election():
    from kubernetes.leaderelection import electionconfig, leaderelection
    try:
        from kubernetes.leaderelection.resourcelock.leaselock import LeaseLock  # noqa: F401
        lock_kinds = "LeaseLock available"
    except ImportError:
        lock_kinds = "22.6 ships only ConfigMapLock"
    from kubernetes.leaderelection.resourcelock.configmaplock import ConfigMapLock

    ns = namespace("py-election")
    leaders = []
    stopped = []
    candidates = {}

    def candidate(identity):
        lock = ConfigMapLock("py-leader", ns, identity)
        candidates[identity] = lock
        cfg = electionconfig.Config(lock, lease_duration=3, renew_deadline=2, retry_period=1,
                                    onstarted_leading=lambda: leaders.append(identity),
                                    onstopped_leading=lambda: stopped.append(identity))
        threading.Thread(target=leaderelection.LeaderElection(cfg).run, daemon=True).start()

    candidate("first")
    wait_for("a first leader", lambda: leaders == ["first"], timeout=10)
    candidate("second")
    time.sleep(4)
    check(leaders == ["first"], "the second candidate does not take a renewed lock: %r" % leaders)
    # The leader can no longer write (as if it hung): it steps down, and the second takes over.
    candidates["first"].update = lambda *args, **kwargs: False
    wait_for("the second candidate to lead", lambda: leaders == ["first", "second"], timeout=20)
    check("first" in stopped, "the first leader stopped leading")
    record = json.loads(client.CoreV1Api().read_namespaced_config_map("py-leader", ns)
                        .metadata.annotations["control-plane.alpha.kubernetes.io/leader"])
    check(record["holderIdentity"] == "second", "the lock names the new leader: %r" % record)
    return "kubernetes.leaderelection: first leads, second waits, takes over when first stops renewing (%s)" % \
        lock_kinds


def lease_lock():
    """Leader election on a coordination.k8s.io Lease, the way client-go's LeaseLock does it."""
    ns = namespace("py-lease")
    coord = client.CoordinationV1Api()

    def now():
        t = datetime.datetime.now(datetime.timezone.utc)
        return t.replace(microsecond=t.microsecond or 1)  # isoformat() drops a zero fraction

    acquired = now()
    lease = coord.create_namespaced_lease(ns, client.V1Lease(
        metadata=client.V1ObjectMeta(name="py-lease"),
        spec=client.V1LeaseSpec(holder_identity="a", lease_duration_seconds=15, acquire_time=acquired,
                                renew_time=acquired, lease_transitions=0)))
    check(lease.spec.renew_time == acquired, "renewTime round-trips with microseconds")
    raw_lease = client.ApiClient().call_api(
        "/apis/coordination.k8s.io/v1/namespaces/%s/leases/py-lease" % ns, "GET",
        header_params={"Accept": "application/json"}, auth_settings=["BearerToken"],
        response_type="object", _return_http_data_only=True)
    check(raw_lease["spec"]["renewTime"].endswith("Z") and len(raw_lease["spec"]["renewTime"]) == 27,
          "MicroTime on the wire: UTC, six digits: %s" % raw_lease["spec"]["renewTime"])
    stale = lease.metadata.resource_version
    lease.spec.renew_time = now()
    renewed = coord.replace_namespaced_lease("py-lease", ns, lease)
    check(renewed.metadata.resource_version != stale, "the holder renews")
    contender = coord.read_namespaced_lease("py-lease", ns)
    contender.metadata.resource_version = stale
    contender.spec.holder_identity = "b"
    try:
        coord.replace_namespaced_lease("py-lease", ns, contender)
        raise AssertionError("a takeover on a stale resourceVersion must conflict")
    except ApiException as e:
        check(e.status == 409, "stale takeover: %s" % e.status)
    lease = coord.read_namespaced_lease("py-lease", ns)
    lease.spec.holder_identity = "b"
    lease.spec.lease_transitions = 1
    lease.spec.acquire_time = now()
    taken = coord.replace_namespaced_lease("py-lease", ns, lease)
    check(taken.spec.holder_identity == "b" and taken.spec.lease_transitions == 1, "takeover on the current version")
    return "Lease create/renew/conflicting takeover/takeover with MicroTime renewTime"


def lease_with_bad_time():
    ns = namespace("py-lease-bad")
    coord = client.CoordinationV1Api()
    try:
        coord.create_namespaced_lease(ns, {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "bad"},
            "spec": {"holderIdentity": "a", "renewTime": "not-a-time"}})
        raise AssertionError("a Lease with renewTime not-a-time must be refused")
    except ApiException as e:
        body = json.loads(e.body)
        check(e.status == 400 and body["reason"] == "BadRequest", "400 BadRequest: %s" % e.body)
        check('parsing time "not-a-time"' in body["message"], "kube's message: %s" % body["message"])
    check(coord.list_namespaced_lease(ns).items == [], "nothing stored: every later list of Leases still decodes")
    return "refused: " + body["message"]


def secrets_string_data():
    ns = namespace("py-secrets")
    core = client.CoreV1Api()
    created = core.create_namespaced_secret(ns, client.V1Secret(
        metadata=client.V1ObjectMeta(name="s"), string_data={"password": "hunter2"}))
    check(created.string_data is None, "stringData is not returned")
    import base64
    check(base64.b64decode(created.data["password"]) == b"hunter2", "stringData merged into data")
    check(created.type == "Opaque", "type defaults to Opaque")
    return "stringData merged into data"


SCENARIOS = [
    list_watch_resource_version_and_timeout,
    informer_list_then_watch,
    watch_custom_resources,
    every_patch_type,
    delete_options,
    events_of_both_apis,
    leader_election,
    lease_lock,
    lease_with_bad_time,
    secrets_string_data,
]


def main():
    config.load_kube_config(config_file=sys.argv[1])
    wanted = set(sys.argv[2:])
    for scenario in SCENARIOS:
        name = scenario.__name__
        if wanted and name not in wanted:
            continue
        try:
            detail = scenario()
            result = {"name": name, "status": "pass", "detail": detail}
        except Skip as e:
            result = {"name": name, "status": "skip", "detail": str(e)}
        except Exception:  # noqa: BLE001 - every failure is reported, the next scenario still runs
            result = {"name": name, "status": "fail", "detail": traceback.format_exc()}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
