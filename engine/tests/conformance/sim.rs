//! A small simulation of the tau2 retail and airline tools on the task
//! databases (`{retail,airline}/db.json`): read tools return records in the
//! shapes the real API returns (checked against `traces/*.json`), write tools
//! apply their effect to an in-memory copy and return the updated record, so
//! later reads see the new state. Only what the conformance suite needs.

use serde_json::{Value as Json, json};

/// The tau2 domain a database belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    Retail,
    Airline,
}

impl Domain {
    pub fn name(self) -> &'static str {
        match self {
            Domain::Retail => "retail",
            Domain::Airline => "airline",
        }
    }

    /// The agent-side mutating tools of the domain (tools.json `WRITE`).
    pub fn is_write(self, tool: &str) -> bool {
        match self {
            Domain::Retail => matches!(
                tool,
                "cancel_pending_order"
                    | "exchange_delivered_order_items"
                    | "modify_pending_order_address"
                    | "modify_pending_order_items"
                    | "modify_pending_order_payment"
                    | "modify_user_address"
                    | "return_delivered_order_items"
            ),
            Domain::Airline => matches!(
                tool,
                "book_reservation"
                    | "cancel_reservation"
                    | "send_certificate"
                    | "update_reservation_baggages"
                    | "update_reservation_flights"
                    | "update_reservation_passengers"
            ),
        }
    }
}

/// A database being mutated by one conversation.
#[derive(Clone, Debug)]
pub struct Db {
    pub domain: Domain,
    pub data: Json,
}

fn s(args: &Json, key: &str) -> String {
    args.get(key)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl Db {
    pub fn user(&self, id: &str) -> Option<&Json> {
        self.data["users"].get(id)
    }

    pub fn order(&self, id: &str) -> Option<&Json> {
        self.data.get("orders").and_then(|o| o.get(id))
    }

    pub fn reservation(&self, id: &str) -> Option<&Json> {
        self.data.get("reservations").and_then(|o| o.get(id))
    }

    pub fn flight(&self, number: &str) -> Option<&Json> {
        self.data.get("flights").and_then(|o| o.get(number))
    }

    /// Runs one tool call: `Ok(result)` or `Err(error text)`.
    pub fn call(&mut self, tool: &str, args: &Json) -> Result<Json, String> {
        match self.domain {
            Domain::Retail => self.retail(tool, args),
            Domain::Airline => self.airline(tool, args),
        }
    }

    fn get(&self, table: &str, id: &str) -> Result<Json, String> {
        self.data[table]
            .get(id)
            .cloned()
            .ok_or_else(|| format!("Error: {table} {id} not found"))
    }

    fn retail(&mut self, tool: &str, args: &Json) -> Result<Json, String> {
        match tool {
            "find_user_id_by_email" => {
                let email = s(args, "email");
                self.find_user(|u| u["email"] == email.as_str())
            }
            "find_user_id_by_name_zip" => {
                let (f, l, z) = (s(args, "first_name"), s(args, "last_name"), s(args, "zip"));
                self.find_user(|u| {
                    u["name"]["first_name"].as_str().map(str::to_lowercase)
                        == Some(f.to_lowercase())
                        && u["name"]["last_name"].as_str().map(str::to_lowercase)
                            == Some(l.to_lowercase())
                        && u["address"]["zip"] == z.as_str()
                })
            }
            "get_user_details" => self.get("users", &s(args, "user_id")),
            "get_order_details" => self.get("orders", &s(args, "order_id")),
            "get_product_details" => self.get("products", &s(args, "product_id")),
            "get_item_details" => {
                let id = s(args, "item_id");
                self.variant(&id)
                    .map(|(_, v)| v)
                    .ok_or_else(|| format!("Error: item {id} not found"))
            }
            "list_all_product_types" => {
                let mut out = serde_json::Map::new();
                for (pid, p) in self.data["products"].as_object().into_iter().flatten() {
                    out.insert(
                        p["name"].as_str().unwrap_or_default().to_owned(),
                        json!(pid),
                    );
                }
                Ok(Json::Object(out))
            }
            "calculate" => Ok(json!("0.0")),
            "transfer_to_human_agents" => Ok(json!("Transfer successful")),
            "modify_user_address" => {
                let id = s(args, "user_id");
                let user = self.data["users"]
                    .get_mut(&id)
                    .ok_or_else(|| format!("Error: user {id} not found"))?;
                user["address"] = address(args);
                Ok(user.clone())
            }
            _ => self.retail_order_write(tool, args),
        }
    }

    fn find_user(&self, pred: impl Fn(&Json) -> bool) -> Result<Json, String> {
        self.data["users"]
            .as_object()
            .into_iter()
            .flatten()
            .find(|(_, u)| pred(u))
            .map(|(id, _)| json!(id))
            .ok_or_else(|| "Error: user not found".to_owned())
    }

    /// The variant `item_id` of some product: (product id, variant record).
    fn variant(&self, item_id: &str) -> Option<(String, Json)> {
        self.data["products"]
            .as_object()?
            .iter()
            .find_map(|(pid, p)| p["variants"].get(item_id).map(|v| (pid.clone(), v.clone())))
    }

    fn retail_order_write(&mut self, tool: &str, args: &Json) -> Result<Json, String> {
        let id = s(args, "order_id");
        let mut order = self.get("orders", &id)?;
        let status = order["status"].as_str().unwrap_or_default().to_owned();
        let needs = match tool {
            "return_delivered_order_items" | "exchange_delivered_order_items" => "delivered",
            _ => "pending",
        };
        if status != needs {
            return Err(format!("Error: non-{needs} order cannot be modified"));
        }
        let total: f64 = order["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["price"].as_f64())
            .sum();
        let history = |order: &mut Json, kind: &str, amount: f64, pm: &str| {
            if let Some(h) = order["payment_history"].as_array_mut() {
                h.push(
                    json!({"transaction_type": kind, "amount": amount, "payment_method_id": pm}),
                );
            }
        };
        let original = order["payment_history"][0]["payment_method_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        match tool {
            "cancel_pending_order" => {
                order["status"] = json!("cancelled");
                order["cancel_reason"] = json!(s(args, "reason"));
                history(&mut order, "refund", total, &original);
            }
            "modify_pending_order_address" => {
                order["address"] = address(args);
            }
            "modify_pending_order_payment" => {
                let pm = s(args, "payment_method_id");
                history(&mut order, "payment", total, &pm);
                history(&mut order, "refund", total, &original);
            }
            "modify_pending_order_items" => {
                let (old, new) = (list(args, "item_ids"), list(args, "new_item_ids"));
                for (o, n) in old.iter().zip(new.iter()) {
                    let (_, v) = self
                        .variant(n)
                        .ok_or_else(|| format!("Error: new item {n} not found"))?;
                    let items = order["items"].as_array_mut().ok_or("no items")?;
                    let line = items
                        .iter_mut()
                        .find(|i| i["item_id"] == o.as_str())
                        .ok_or_else(|| format!("Error: {o} not found"))?;
                    line["item_id"] = json!(n);
                    line["price"] = v["price"].clone();
                    line["options"] = v["options"].clone();
                }
                order["status"] = json!("pending (item modified)");
            }
            "return_delivered_order_items" => {
                order["status"] = json!("return requested");
                order["return_items"] = json!(list(args, "item_ids"));
                order["return_payment_method_id"] = json!(s(args, "payment_method_id"));
            }
            "exchange_delivered_order_items" => {
                order["status"] = json!("exchange requested");
                order["exchange_items"] = json!(list(args, "item_ids"));
                order["exchange_new_items"] = json!(list(args, "new_item_ids"));
                order["exchange_payment_method_id"] = json!(s(args, "payment_method_id"));
            }
            other => return Err(format!("Error: unknown tool {other}")),
        }
        self.data["orders"][&id] = order.clone();
        Ok(order)
    }

    fn airline(&mut self, tool: &str, args: &Json) -> Result<Json, String> {
        match tool {
            "get_user_details" => self.get("users", &s(args, "user_id")),
            "get_reservation_details" => self.get("reservations", &s(args, "reservation_id")),
            "search_direct_flight" => Ok(self.search(args)),
            "search_onestop_flight" | "list_all_airports" => Ok(json!([])),
            "get_flight_status" => {
                let f = self.get("flights", &s(args, "flight_number"))?;
                Ok(f["dates"][s(args, "date")]["status"].clone())
            }
            "calculate" => Ok(json!("0.0")),
            "transfer_to_human_agents" => Ok(json!("Transfer successful")),
            "send_certificate" => Ok(json!(format!(
                "Certificate certificate_0000001 added to user {} with amount {}.",
                s(args, "user_id"),
                args["amount"]
            ))),
            "book_reservation" => {
                let user = s(args, "user_id");
                self.get("users", &user)?;
                let cabin = s(args, "cabin");
                let flights = self.priced_flights(&args["flights"], &cabin, None)?;
                let id = "HATHAT".to_owned();
                let record = json!({
                    "reservation_id": id, "user_id": user,
                    "origin": args["origin"], "destination": args["destination"],
                    "flight_type": args["flight_type"], "cabin": cabin, "flights": flights,
                    "passengers": args["passengers"], "payment_history": args["payment_methods"],
                    "created_at": "2024-05-15T15:00:00",
                    "total_baggages": args["total_baggages"],
                    "nonfree_baggages": args["nonfree_baggages"],
                    "insurance": args["insurance"], "status": null
                });
                self.data["reservations"][&id] = record.clone();
                if let Some(r) = self.data["users"][&user]["reservations"].as_array_mut() {
                    r.push(json!(id));
                }
                Ok(record)
            }
            _ => {
                let id = s(args, "reservation_id");
                let mut r = self.get("reservations", &id)?;
                match tool {
                    "cancel_reservation" => {
                        r["status"] = json!("cancelled");
                        let refunds: Vec<Json> = r["payment_history"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|p| json!({"payment_id": p["payment_id"], "amount": -p["amount"].as_f64().unwrap_or(0.0)}))
                            .collect();
                        if let Some(h) = r["payment_history"].as_array_mut() {
                            h.extend(refunds);
                        }
                    }
                    "update_reservation_baggages" => {
                        r["total_baggages"] = args["total_baggages"].clone();
                        r["nonfree_baggages"] = args["nonfree_baggages"].clone();
                    }
                    "update_reservation_passengers" => {
                        r["passengers"] = args["passengers"].clone();
                    }
                    "update_reservation_flights" => {
                        let cabin = s(args, "cabin");
                        let flights = self.priced_flights(&args["flights"], &cabin, Some(&r))?;
                        r["cabin"] = json!(cabin);
                        r["flights"] = json!(flights);
                    }
                    other => return Err(format!("Error: unknown tool {other}")),
                }
                self.data["reservations"][&id] = r.clone();
                Ok(r)
            }
        }
    }

    /// Reservation flight records for `flights` (`[{flight_number, date}]`)
    /// in `cabin`; a segment kept from `old` in the same cabin keeps its price.
    fn priced_flights(
        &self,
        flights: &Json,
        cabin: &str,
        old: Option<&Json>,
    ) -> Result<Vec<Json>, String> {
        let mut out = Vec::new();
        for f in flights.as_array().into_iter().flatten() {
            let number = s(f, "flight_number");
            let date = s(f, "date");
            let kept = old.filter(|r| r["cabin"] == cabin).and_then(|r| {
                r["flights"]
                    .as_array()?
                    .iter()
                    .find(|x| x["flight_number"] == number.as_str() && x["date"] == date.as_str())
                    .cloned()
            });
            if let Some(k) = kept {
                out.push(k);
                continue;
            }
            let db = self.get("flights", &number)?;
            let price = db["dates"][&date]["prices"][cabin].clone();
            out.push(json!({
                "flight_number": number, "origin": db["origin"], "destination": db["destination"],
                "date": date, "price": if price.is_null() { json!(0) } else { price }
            }));
        }
        Ok(out)
    }

    fn search(&self, args: &Json) -> Json {
        let (origin, dest, date) = (s(args, "origin"), s(args, "destination"), s(args, "date"));
        let mut out = Vec::new();
        for f in self.data["flights"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(_, f)| f)
        {
            let d = &f["dates"][&date];
            if f["origin"] == origin.as_str()
                && f["destination"] == dest.as_str()
                && d["status"] == "available"
            {
                out.push(json!({
                    "flight_number": f["flight_number"], "origin": f["origin"],
                    "destination": f["destination"], "status": "available",
                    "scheduled_departure_time_est": f["scheduled_departure_time_est"],
                    "scheduled_arrival_time_est": f["scheduled_arrival_time_est"],
                    "date": date, "available_seats": d["available_seats"], "prices": d["prices"]
                }));
            }
        }
        Json::Array(out)
    }
}

fn address(args: &Json) -> Json {
    json!({
        "address1": args["address1"], "address2": args["address2"], "city": args["city"],
        "country": args["country"], "state": args["state"], "zip": args["zip"]
    })
}

pub fn list(args: &Json, key: &str) -> Vec<String> {
    args[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}
