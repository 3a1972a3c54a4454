"""firebase-tools src/emulator/auth/tenant.spec.ts: the Admin API's tenants (v2 `projects/{p}/tenants`).

The spec names the project `project-id`, which firebase-tools' emulator (started for `example`) serves as well;
ours serves the one project it was started for and refuses another with INVALID_PROJECT_ID. Each case checks
that refusal, then makes the spec's requests on the emulator's project.
"""

from specs import (IDENTITY_V2, PROJECT_ID, SpecFailure, expect_equal, expect_error, expect_field, expect_members,
                   expect_no_field, expect_status, expect_true, register_tenant, spec)

it = spec("tenant.spec.ts")
ONE_PROJECT = ("one project per emulator process: ours refuses the spec's project-id (INVALID_PROJECT_ID), "
               "so the case is made on the emulator's project, example")
SPEC_PROJECT = "project-id"
TENANTS = f"{IDENTITY_V2}/projects/{PROJECT_ID}/tenants"
ALL_SET = {
    "allowPasswordSignup": True,
    "disableAuth": False,
    "displayName": "display",
    "enableAnonymousUser": True,
    "enableEmailLinkSignin": True,
    "mfaConfig": {"enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"], "state": "ENABLED"},
}


def _refuses_spec_project(api):
    res = api.get(f"{IDENTITY_V2}/projects/{SPEC_PROJECT}/tenants", key=None, owner=True)
    expect_error(res, 400, "INVALID_PROJECT_ID", prefix=True)


def _expect_bool(body, name, expected):
    """chai's `expect(body[name]).to.be.true` / `.false`: that very boolean."""
    value = body.get(name) if isinstance(body, dict) else None
    if value is not expected:
        raise SpecFailure(f"expected {name} to be {expected}, got {value!r}")


def _tenant_ids(body):
    tenants = body.get("tenants") if isinstance(body, dict) else None
    if not isinstance(tenants, list):
        raise SpecFailure(f"expected a list of tenants, got {tenants!r}")
    return [tenant.get("tenantId") for tenant in tenants]


def _expect_all_set(body):
    for name in ("allowPasswordSignup", "disableAuth", "enableAnonymousUser", "enableEmailLinkSignin"):
        _expect_bool(body, name, ALL_SET[name])
    expect_equal(body.get("displayName"), "display", "displayName")
    expect_equal(body.get("mfaConfig"), ALL_SET["mfaConfig"], "mfaConfig")


def _expect_production_defaults(body):
    for name in ("allowPasswordSignup", "disableAuth", "enableAnonymousUser", "enableEmailLinkSignin"):
        _expect_bool(body, name, False)
    expect_equal(body.get("mfaConfig"), {"state": "DISABLED", "enabledProviders": []}, "mfaConfig")


# MARK: createTenant


@it("should create tenants", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    res = api.post(TENANTS, ALL_SET, key=None, owner=True)
    expect_status(200, res)
    _expect_all_set(res.body)
    tenant_id = expect_field(res.body, "tenantId")
    expect_true(tenant_id != "", "expected a non-empty tenantId")
    expect_field(res.body, "name", f"projects/{PROJECT_ID}/tenants/{tenant_id}")


@it("should create a tenant with default disabled settings", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    res = api.post(TENANTS, {}, key=None, owner=True)
    expect_status(200, res)
    _expect_production_defaults(res.body)


# MARK: getTenants


@it("should get tenants", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    res = api.get(f"{TENANTS}/{tenant.get('tenantId')}", key=None, owner=True)
    expect_status(200, res)
    expect_equal(res.body, tenant, "tenant")


@it("should create tenants with default enabled settings if they do not exist", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    res = api.get(TENANTS, key=None, owner=True)
    expect_status(200, res)
    expect_equal(len(_tenant_ids(res.body)), 0, "number of tenants")

    tenant_id = "tenant-id"
    res = api.get(f"{TENANTS}/{tenant_id}", key=None, owner=True)
    expect_status(200, res)
    expect_equal(res.body, {
        "tenantId": tenant_id,
        "name": f"projects/{PROJECT_ID}/tenants/{tenant_id}",
        "allowPasswordSignup": True,
        "disableAuth": False,
        "enableAnonymousUser": True,
        "enableEmailLinkSignin": True,
        "mfaConfig": {"enabledProviders": ["PHONE_SMS"], "state": "ENABLED"},
    }, "the implicitly created tenant")

    res = api.get(TENANTS, key=None, owner=True)
    expect_status(200, res)
    expect_equal(_tenant_ids(res.body), [tenant_id], "tenant IDs")


# MARK: deleteTenants


@it("should delete tenants", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    expect_status(200, api.delete(f"{TENANTS}/{tenant.get('tenantId')}", key=None, owner=True))


@it("should delete tenants if request body is passed", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    # An unusual DELETE with a JSON body `{}`, as the Node.js Admin SDK sends.
    expect_status(200, api.request("DELETE", f"{TENANTS}/{tenant.get('tenantId')}", {}, key=None, owner=True))


# MARK: listTenants


@it("should list tenants", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    first = register_tenant(api, PROJECT_ID, {})
    second = register_tenant(api, PROJECT_ID, {})
    res = api.get(TENANTS, key=None, owner=True)
    expect_status(200, res)
    expect_members(_tenant_ids(res.body), [first.get("tenantId"), second.get("tenantId")], "tenant IDs")
    expect_no_field(res.body, "nextPageToken")


@it("should allow specifying pageSize and pageToken", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    ids = sorted(register_tenant(api, PROJECT_ID, {}).get("tenantId") for _ in range(2))

    res = api.get(TENANTS, key=None, owner=True, query={"pageSize": 1})
    expect_status(200, res)
    expect_equal(_tenant_ids(res.body), ids[:1], "first page's tenant IDs")
    token = expect_field(res.body, "nextPageToken", kind=str)

    res = api.get(TENANTS, key=None, owner=True, query={"pageToken": token})
    expect_status(200, res)
    expect_equal(_tenant_ids(res.body), ids[1:], "second page's tenant IDs")
    expect_no_field(res.body, "nextPageToken")


@it("should always return a page token even if page is full", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    ids = sorted(register_tenant(api, PROJECT_ID, {}).get("tenantId") for _ in range(2))

    res = api.get(TENANTS, key=None, owner=True, query={"pageSize": 2})
    expect_status(200, res)
    expect_equal(_tenant_ids(res.body), ids, "first page's tenant IDs")
    token = expect_field(res.body, "nextPageToken", kind=str)

    res = api.get(TENANTS, key=None, owner=True, query={"pageToken": token})
    expect_status(200, res)
    expect_equal(len(res.body.get("tenants") or []), 0, "number of tenants on the second page")
    expect_no_field(res.body, "nextPageToken")


# MARK: updateTenants


@it("updates tenant config", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    mask = "allowPasswordSignup,disableAuth,displayName,enableAnonymousUser,enableEmailLinkSignin,mfaConfig"
    res = api.patch(f"{TENANTS}/{tenant.get('tenantId')}", ALL_SET, key=None, owner=True, query={"updateMask": mask})
    expect_status(200, res)
    _expect_all_set(res.body)


@it("does not update if the field does not exist on the update tenant", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    res = api.patch(f"{TENANTS}/{tenant.get('tenantId')}", {}, key=None, owner=True,
                    query={"updateMask": "displayName"})
    expect_status(200, res)
    expect_no_field(res.body, "displayName")


@it("does not update if indexing a primitive field or array on the update tenant", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {
        "displayName": "display",
        "mfaConfig": {"enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]},
    })
    res = api.patch(f"{TENANTS}/{tenant.get('tenantId')}",
                    {"displayName": "unused", "mfaConfig": {"enabledProviders": ["PROVIDER_UNSPECIFIED"]}},
                    key=None, owner=True,
                    query={"updateMask": "displayName.0,mfaConfig.enabledProviders.nonexistentField"})
    expect_status(200, res)
    expect_equal(res.body.get("displayName"), "display", "displayName")
    expect_equal((res.body.get("mfaConfig") or {}).get("enabledProviders"), ["PROVIDER_UNSPECIFIED", "PHONE_SMS"],
                 "mfaConfig.enabledProviders")


@it("performs a full update if the update mask is empty", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    res = api.patch(f"{TENANTS}/{tenant.get('tenantId')}", ALL_SET, key=None, owner=True)
    expect_status(200, res)
    _expect_all_set(res.body)


@it("performs a full update with production defaults if the update mask is empty", differs=ONE_PROJECT)
def _(api):
    _refuses_spec_project(api)
    tenant = register_tenant(api, PROJECT_ID, {})
    res = api.patch(f"{TENANTS}/{tenant.get('tenantId')}", {}, key=None, owner=True)
    expect_status(200, res)
    _expect_production_defaults(res.body)
