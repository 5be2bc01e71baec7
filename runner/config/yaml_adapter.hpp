#pragma once
/// A valijson adapter over yaml-cpp nodes that types scalars the YAML 1.2 way (yaml_scalar.hpp).
///
/// valijson 1.0's own YamlCppAdapter cannot be used: its array iterator has no operator--, so
/// ValidationVisitor (uniqueItems) does not compile with it; and it reports every node, lists,
/// maps and nulls included, as a string and no node as a number, so `type: integer` fails in
/// strict mode, while in weak mode `type: string` accepts lists and `pattern` or `minLength` on
/// an empty value throws from inside valijson. This adapter mirrors its structure with honest
/// types, so strict validation works.
/// The member names (getArrayOptional, isInteger, ...) are the ones valijson's BasicAdapter calls.
#include <cstdint>
#include <string>
#include <utility>

#include <valijson/internal/adapter.hpp>
#include <valijson/internal/basic_adapter.hpp>
#include <valijson/internal/frozen_value.hpp>
#include <yaml-cpp/yaml.h>

#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

/// A YAML::Node that rebinds on assignment. yaml-cpp's Node::operator= writes the right-hand
/// node's content into the node on the left, changing the document; valijson assigns adapters
/// and iterators freely, so every node they hold is one of these.
class node_handle {
public:
  node_handle(const YAML::Node& node) : m_node(node) {} // NOLINT: implicit by design
  node_handle(const node_handle&) = default;
  node_handle& operator=(const node_handle& other) {
    m_node.reset(other.m_node);
    return *this;
  }
  ~node_handle() = default;
  [[nodiscard]] const YAML::Node& get() const { return m_node; }

private:
  YAML::Node m_node;
};

class yaml_adapter;
class yaml_array_iterator;
class yaml_object_iterator;

using yaml_object_member = std::pair<std::string, yaml_adapter>;

/// The text of a mapping key, as valijson and our key paths name it.
inline std::string key_name(const YAML::Node& key) { return key.IsScalar() ? key.Scalar() : YAML::Dump(key); }

class yaml_array {
public:
  using const_iterator = yaml_array_iterator;
  using iterator = yaml_array_iterator;
  yaml_array() : m_value(YAML::Node(YAML::NodeType::Sequence)) {}
  explicit yaml_array(const YAML::Node& value) : m_value(value) {}
  [[nodiscard]] yaml_array_iterator begin() const;
  [[nodiscard]] yaml_array_iterator end() const;
  [[nodiscard]] std::size_t size() const { return m_value.get().size(); }

private:
  node_handle m_value;
};

class yaml_object {
public:
  using const_iterator = yaml_object_iterator;
  using iterator = yaml_object_iterator;
  yaml_object() : m_value(YAML::Node(YAML::NodeType::Map)) {}
  explicit yaml_object(const YAML::Node& value) : m_value(value) {}
  [[nodiscard]] yaml_object_iterator begin() const;
  [[nodiscard]] yaml_object_iterator end() const;
  [[nodiscard]] yaml_object_iterator find(const std::string& name) const;
  [[nodiscard]] std::size_t size() const { return m_value.get().size(); }

private:
  node_handle m_value;
};

class yaml_frozen_value : public valijson::adapters::FrozenValue {
public:
  explicit yaml_frozen_value(const YAML::Node& source) : m_value(YAML::Clone(source)) {}
  [[nodiscard]] FrozenValue* clone() const override { return new yaml_frozen_value(m_value.get()); }
  bool equalTo(const valijson::adapters::Adapter& other, bool strict) const override;

private:
  node_handle m_value;
};

class yaml_value {
public:
  yaml_value() : m_value(YAML::Node(YAML::NodeType::Map)) {}
  explicit yaml_value(const YAML::Node& value) : m_value(value), m_kind(kind_of(value)) {}

  [[nodiscard]] valijson::adapters::FrozenValue* freeze() const { return new yaml_frozen_value(m_value.get()); }
  [[nodiscard]] opt::optional<yaml_array> getArrayOptional() const {
    if (isArray()) return yaml_array(m_value.get());
    return {};
  }
  bool getArraySize(std::size_t& out) const { return isArray() && (out = m_value.get().size(), true); }
  bool getBool(bool& out) const { return assign(to_bool(m_value.get()), out); }
  bool getDouble(double& out) const { return isDouble() && assign(to_number(m_value.get()), out); }
  bool getInteger(std::int64_t& out) const { return assign(to_int(m_value.get()), out); }
  [[nodiscard]] opt::optional<yaml_object> getObjectOptional() const {
    if (isObject()) return yaml_object(m_value.get());
    return {};
  }
  bool getObjectSize(std::size_t& out) const { return isObject() && (out = m_value.get().size(), true); }
  bool getString(std::string& out) const { return isString() && (out = m_value.get().Scalar(), true); }
  static bool hasStrictTypes() { return true; }
  [[nodiscard]] bool isArray() const { return m_kind == node_kind::list; }
  [[nodiscard]] bool isBool() const { return m_kind == node_kind::boolean; }
  [[nodiscard]] bool isDouble() const { return m_kind == node_kind::number; }
  [[nodiscard]] bool isInteger() const { return m_kind == node_kind::integer; }
  [[nodiscard]] bool isNull() const { return m_kind == node_kind::null || m_kind == node_kind::missing; }
  [[nodiscard]] bool isNumber() const { return isInteger() || isDouble(); }
  [[nodiscard]] bool isObject() const { return m_kind == node_kind::map; }
  [[nodiscard]] bool isString() const { return m_kind == node_kind::string; }

private:
  template <typename T, typename U> static bool assign(const std::optional<T>& v, U& out) {
    if (!v) return false;
    out = static_cast<U>(*v);
    return true;
  }

  node_handle m_value;
  node_kind m_kind = node_kind::map;
};

class yaml_adapter
    : public valijson::adapters::BasicAdapter<yaml_adapter, yaml_array, yaml_object_member, yaml_object, yaml_value> {
public:
  yaml_adapter() = default;
  explicit yaml_adapter(const YAML::Node& value) : BasicAdapter(yaml_value(value)) {}
};

// Index-based and bidirectional: valijson's uniqueItems check decrements end(), which
// yaml-cpp's forward-only iterators cannot do (the reason the stock adapter fails to compile).
class yaml_array_iterator {
public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = yaml_adapter;
  using difference_type = std::ptrdiff_t;
  using pointer = yaml_adapter*;
  using reference = yaml_adapter&;

  yaml_array_iterator(const YAML::Node& sequence, std::size_t index) : m_sequence(sequence), m_index(index) {}
  yaml_adapter operator*() const;
  valijson::adapters::DerefProxy<yaml_adapter> operator->() const {
    return valijson::adapters::DerefProxy<yaml_adapter>(**this);
  }
  bool operator==(const yaml_array_iterator& other) const { return m_index == other.m_index; }
  bool operator!=(const yaml_array_iterator& other) const { return m_index != other.m_index; }
  yaml_array_iterator& operator++() {
    ++m_index;
    return *this;
  }
  yaml_array_iterator operator++(int) {
    yaml_array_iterator before = *this;
    ++m_index;
    return before;
  }
  yaml_array_iterator& operator--() {
    --m_index;
    return *this;
  }
  void advance(std::ptrdiff_t n) { m_index += static_cast<std::size_t>(n); }

private:
  node_handle m_sequence;
  std::size_t m_index;
};

class yaml_object_iterator {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = yaml_object_member;
  using difference_type = std::ptrdiff_t;
  using pointer = yaml_object_member*;
  using reference = yaml_object_member&;

  explicit yaml_object_iterator(YAML::const_iterator it) : m_it(std::move(it)) {}
  yaml_object_member operator*() const { return yaml_object_member(key_name(m_it->first), yaml_adapter(m_it->second)); }
  valijson::adapters::DerefProxy<yaml_object_member> operator->() const {
    return valijson::adapters::DerefProxy<yaml_object_member>(**this);
  }
  bool operator==(const yaml_object_iterator& other) const { return m_it == other.m_it; }
  bool operator!=(const yaml_object_iterator& other) const { return !(m_it == other.m_it); }
  const yaml_object_iterator& operator++() {
    ++m_it;
    return *this;
  }
  yaml_object_iterator operator++(int) {
    yaml_object_iterator before(m_it);
    ++m_it;
    return before;
  }

private:
  YAML::const_iterator m_it;
};

inline yaml_adapter yaml_array_iterator::operator*() const {
  const YAML::Node& sequence = m_sequence.get(); // the const operator[] never inserts
  return yaml_adapter(sequence[m_index]);
}
inline yaml_array_iterator yaml_array::begin() const { return {m_value.get(), 0}; }
inline yaml_array_iterator yaml_array::end() const { return {m_value.get(), m_value.get().size()}; }
inline yaml_object_iterator yaml_object::begin() const { return yaml_object_iterator(m_value.get().begin()); }
inline yaml_object_iterator yaml_object::end() const { return yaml_object_iterator(m_value.get().end()); }

inline yaml_object_iterator yaml_object::find(const std::string& name) const {
  for (auto it = begin(); it != end(); ++it)
    if (it->first == name) return it;
  return end();
}

inline bool yaml_frozen_value::equalTo(const valijson::adapters::Adapter& other, bool strict) const {
  return yaml_adapter(m_value.get()).equalTo(other, strict);
}

} // namespace bb::config::detail

template <> struct valijson::adapters::AdapterTraits<bb::config::detail::yaml_adapter> {
  using DocumentType = YAML::Node;
  static std::string adapterName() { return "bb::config::detail::yaml_adapter"; }
};
