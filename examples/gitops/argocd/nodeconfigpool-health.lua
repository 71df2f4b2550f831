-- Argo CD health check for nodeherd.io/NodeConfigPool (resource.customizations.health.nodeherd.io_NodeConfigPool).
-- It reads what kstatus reads: observedGeneration, then the Stalled, Reconciling and Ready conditions the
-- controller writes beside its own (docs/gitops.md). Lua 5.1, as Argo CD runs it.
local hs = { status = "Progressing", message = "waiting for the nodeherd controller" }
if obj.status == nil then
  return hs
end
local generation = obj.metadata and obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.message = "the nodeherd controller has not seen this generation yet"
  return hs
end
local conditions = {}
if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    conditions[condition.type] = condition
  end
end
local stalled = conditions["Stalled"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.reason .. ": " .. (stalled.message or "")
  return hs
end
local ready = conditions["Ready"]
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or ""
  return hs
end
if obj.spec ~= nil and obj.spec.paused == true then
  hs.status = "Suspended"
  hs.message = "the rollout is paused (spec.paused)"
  return hs
end
local reconciling = conditions["Reconciling"]
if reconciling ~= nil then
  hs.message = reconciling.reason .. ": " .. (reconciling.message or "")
end
return hs
